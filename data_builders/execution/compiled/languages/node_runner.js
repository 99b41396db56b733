// UniCE's Node runner: one sandboxed Node process that runs many JavaScript programs, each in
// its own worker thread (its own V8 isolate: no JavaScript object is shared between programs),
// so a labelling job pays Node's start-up once per runner instead of once per program.
//
// Protocol (data_builders/execution/foreign_runner.py): one JSON request per line on stdin,
//   {"nonce": "...", "file": "/build/main.js", "start": k, "heap_mb": N, "max_output": B,
//    "token": "..."}
// The token (the program's report token) goes to the worker in its workerData, which the
// driver's first line takes and blanks before any of the program's own code runs.
// The program's case reports (S/P/F/E/M k) go to the result descriptor, as in a process of
// its own; when the program's worker has exited the runner writes
//   X <nonce> <exit code> <1: fresh, 0: replace me> <error text>
// The nonce is never shown to the program, so it cannot end its own run early and report
// for the next one. A line {"stop": true} (the host saw the program pass its CPU or wall
// limit) terminates the running program's worker (V8 stops its isolate wherever it is) and
// reports it as X with exit code 124; the runner lives on for the next program. The host
// kills the whole runner when no X follows soon (a program blocked where V8 cannot stop it).
// Before X: the worker is gone, and /tmp, /dev/shm and the working folder are emptied, so
// the next program finds what a fresh process would.
'use strict'
const fs = require('fs')
const path = require('path')
const readline = require('readline')
const { Worker } = require('worker_threads')

// The runner empties /tmp, /dev/shm and its working folder after every program: only ever
// inside the sandbox, whose /tmp is a private tmpfs and whose PID namespace makes it PID 2
// (bubblewrap is 1). Started any other way (by hand, from a shell) it refuses before reading
// a request, so it can never empty a real /tmp.
function sandboxed () {
  if (process.pid > 2) return false
  let mounts = ''
  try { mounts = fs.readFileSync('/proc/self/mountinfo', 'utf8') } catch (e) { return false }
  return mounts.split('\n').some((line) => {
    const fields = line.split(' ')
    const dash = fields.indexOf('-')
    return fields[4] === '/tmp' && dash > 0 && fields[dash + 1] === 'tmpfs'
  })
}
if (!sandboxed()) {
  process.stderr.write('node_runner.js empties /tmp after each program and runs only inside ' +
    "UniCE's sandbox (bubblewrap: its own PID namespace and a private tmpfs /tmp); refusing\n")
  process.exit(78)
}

const resultFd = Number(process.argv[2])
// Folders bound into the sandbox (the builds), never emptied: argv[3], ':'-separated.
const kept = new Set((process.argv[3] || '').split(':').filter(Boolean))
const scratch = ['/tmp', '/dev/shm', process.cwd()]
const openFiles = () => fs.readdirSync('/proc/self/fd').length
const baselineFiles = openFiles()
const maxRssBytes = Number(process.argv[4] || 0) * 1024 * 1024

// Whether the process is still as a fresh one would be: scratch emptied, no descriptor
// left open by the program (a worker's open files outlive it), memory back near start.
function empty (dir) {
  let names = []
  try { names = fs.readdirSync(dir) } catch (e) { return true }
  let emptied = true
  for (const name of names) {
    const full = path.join(dir, name)
    if (kept.has(full)) continue
    if ([...kept].some((k) => k.startsWith(full + '/'))) { // holds a kept folder: go inside
      emptied = empty(full) && emptied
      continue
    }
    try { fs.rmSync(full, { recursive: true, force: true }) } catch (e) { emptied = false }
  }
  return emptied
}

function clean () {
  let fresh = true
  for (const dir of new Set(scratch)) fresh = empty(dir) && fresh
  if (openFiles() > baselineFiles + 4) fresh = false
  if (maxRssBytes && process.memoryUsage().rss > maxRssBytes) fresh = false
  return fresh
}

function finish (nonce, code, text) {
  const fresh = clean()
  const detail = String(text || '').replace(/\s+/g, ' ').slice(0, 2000)
  fs.writeSync(resultFd, `X ${nonce} ${code} ${fresh ? 1 : 0} ${detail}\n`)
  if (!fresh) process.exit(75) // the executor starts a fresh runner for the next program
}

let current = null // the running program's worker, while it runs

function run (request) {
  return new Promise((resolve) => {
    let errorText = ''
    let outputBytes = 0
    let overflow = false
    const worker = new Worker(request.file, {
      argv: [String(request.start), String(resultFd)],
      workerData: { token: String(request.token || '') },
      env: { ...process.env },
      stdout: true,
      stderr: true,
      resourceLimits: { maxOldGenerationSizeMb: request.heap_mb }
    })
    const mine = { worker, stopped: false }
    current = mine
    const count = (chunk, keep) => {
      outputBytes += chunk.length
      if (keep) errorText = (errorText + chunk.toString()).slice(-2000)
      if (outputBytes > request.max_output && !overflow) {
        overflow = true // as a process past its file-size limit (SIGXFSZ): stopped
        worker.terminate()
      }
    }
    worker.stdout.on('data', (chunk) => count(chunk, false))
    worker.stderr.on('data', (chunk) => count(chunk, true))
    worker.on('error', (error) => {
      const oom = error && error.code === 'ERR_WORKER_OUT_OF_MEMORY'
      errorText += oom ? ' Reached heap limit' : ' ' + (error && error.stack ? error.stack : error)
    })
    worker.on('exit', (code) => {
      current = null
      // 153 = 128 + SIGXFSZ: the runner reads it as a process killed for its output;
      // 124: stopped at the host's request (a limit)
      resolve([overflow ? 153 : mine.stopped ? 124 : code, errorText])
    })
  })
}

const requests = readline.createInterface({ input: process.stdin, terminal: false })
let queue = Promise.resolve()
requests.on('line', (line) => {
  const request = JSON.parse(line)
  if (request.stop) { // not queued: it is for the program running now (if any)
    if (current) { current.stopped = true; current.worker.terminate() }
    return
  }
  queue = queue.then(() => run(request)).then(([code, text]) => finish(request.nonce, code, text))
})
requests.on('close', () => queue.then(() => process.exit(0)))
