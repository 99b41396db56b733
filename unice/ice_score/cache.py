"""The judge's reply cache: :mod:`data_builders.openai_client.cache`, re-exported.

Why re-exported: it moved next to the OpenAI-compatible client that the dataset builders share;
``from unice.ice_score.cache import ReplyCache, request_key`` keeps working. Keys hold backend,
model, prompt messages and generation parameters, never the server URL.
"""

from data_builders.openai_client.cache import CACHE_VERSION, ReplyCache, request_key

__all__ = ["CACHE_VERSION", "ReplyCache", "request_key"]
