// Public media files kept in memory, bounded by their bytes (MEDIA_CACHE_MB), so a
// file served again costs no database query (docs/security.md, Public files). A
// file never changes under its id (routes/media-files.ts), so an entry never goes
// stale; the least recently served ones leave first. toad-cache, used for the API
// keys, bounds a cache by its number of entries only, and files range from bytes to
// 10 MB: hence this small LRU by bytes (a Map keeps insertion order).
export interface CachedMediaFile { mime: string, sha256: string, data: Buffer }

export class MediaFileCache {
  private readonly files = new Map<string, CachedMediaFile>()
  private bytes = 0
  private readonly maxBytes: number

  constructor (maxBytes: number) {
    this.maxBytes = maxBytes
  }

  get (name: string): CachedMediaFile | undefined {
    const file = this.files.get(name)
    if (file === undefined) return undefined
    // Most recently used last.
    this.files.delete(name)
    this.files.set(name, file)
    return file
  }

  set (name: string, file: CachedMediaFile) {
    // A file larger than the whole cache is served, not kept.
    if (file.data.length > this.maxBytes || this.files.has(name)) return
    this.files.set(name, file)
    this.bytes += file.data.length
    for (const [oldest, evicted] of this.files) {
      if (this.bytes <= this.maxBytes) break
      this.files.delete(oldest)
      this.bytes -= evicted.data.length
    }
  }

  /** Bytes held now. */
  get size (): number {
    return this.bytes
  }
}
