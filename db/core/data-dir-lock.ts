// PGlite has no postmaster to keep a second process off its files, and two
// processes writing one data directory corrupt it. So the process that opens
// the embedded database holds DATA_DIR/owner.pid (created exclusively) until it
// closes it; another server or the CLI finds the owner alive and refuses. A file
// left by a process that died is taken over.
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'

export class DataDirInUseError extends Error {
  readonly dataDir: string
  readonly pid: number

  constructor (dataDir: string, pid: number) {
    super(`the embedded database in ${dataDir} is in use by another process (pid ${pid}), probably a running server: ` +
      'stop it first, or do this through the operator API (/internal/v1) of that server.')
    this.name = 'DataDirInUseError'
    this.dataDir = dataDir
    this.pid = pid
  }
}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    // EPERM: the process exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Takes the directory for this process; returns the release function. */
export function lockDataDir (dataDir: string): () => void {
  const file = join(dataDir, 'owner.pid')
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(file, `${process.pid}\n`, { flag: 'wx', mode: 0o644 })
      return () => {
        if (ownerOf(file) === process.pid) rmSync(file, { force: true })
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
    }
    const owner = ownerOf(file)
    // Our own pid is a file left by an earlier process that had the same pid
    // (as PID 1 in a container restarted with the same volume).
    if (owner !== null && owner !== process.pid && isAlive(owner)) throw new DataDirInUseError(resolve(dataDir), owner)
    rmSync(file, { force: true })
  }
  throw new Error(`Could not take ${file}: other processes keep creating it.`)
}

function ownerOf (file: string): number | null {
  try {
    const pid = Number.parseInt(readFileSync(file, 'utf8'), 10)
    return Number.isInteger(pid) && pid > 0 ? pid : null
  } catch {
    return null
  }
}
