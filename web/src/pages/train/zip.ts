// A zip archive of stored (uncompressed) files, for "Export as one zip": the model folder's
// three files in one download. The format (PKWARE's APPNOTE.TXT, the parts every unzip
// reads): per file a local header (signature 0x04034b50) and the bytes, then the central
// directory (0x02014b50 per file) and its end record (0x06054b50). Method 0 (stored), CRC-32
// of each file, UTF-8 names (general purpose flag bit 11). No ZIP64: every size and offset
// must stay below 4 GiB (a trained toy model is a few MiB).

export interface ZipEntry {
  /** The path inside the archive, '/'-separated ("model/config.json"). */
  name: string;
  data: Uint8Array;
}

let crcTable: Uint32Array | null = null;

/** CRC-32 (the IEEE polynomial 0xEDB88320, reflected, as zip, gzip and PNG use it). */
export function crc32(data: Uint8Array): number {
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let c = 0xffffffff;
  for (let i = 0; i < data.length; i++) c = crcTable[(c ^ data[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** MS-DOS time and date fields of a moment (local time; 2-second resolution; 1980..2107). */
function dosTime(d: Date): { time: number; date: number } {
  const year = Math.min(2107, Math.max(1980, d.getFullYear()));
  return {
    time: (d.getHours() << 11) | (d.getMinutes() << 5) | (d.getSeconds() >> 1),
    date: ((year - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate(),
  };
}

const LIMIT = 0xffffffff;

/** The archive of these files, stored, each with the modification time `when`. */
export function zipStore(entries: readonly ZipEntry[], when: Date = new Date()): Uint8Array<ArrayBuffer> {
  const enc = new TextEncoder();
  const { time, date } = dosTime(when);
  const names = entries.map((e) => enc.encode(e.name));
  const crcs = entries.map((e) => crc32(e.data));
  for (const [i, e] of entries.entries()) {
    if (names[i]!.length === 0 || names[i]!.length > 0xffff) throw new Error(`zip: bad file name "${e.name}"`);
    if (e.data.length >= LIMIT) throw new Error(`zip: ${e.name} is too large for a zip without ZIP64`);
  }
  if (entries.length > 0xffff) throw new Error('zip: more than 65535 files');
  const localSize = entries.reduce((n, e, i) => n + 30 + names[i]!.length + e.data.length, 0);
  const centralSize = names.reduce((n, name) => n + 46 + name.length, 0);
  if (localSize + centralSize >= LIMIT) throw new Error('zip: the archive would pass 4 GiB (no ZIP64)');
  const out = new Uint8Array(new ArrayBuffer(localSize + centralSize + 22));
  const v = new DataView(out.buffer);
  let p = 0;
  const u16 = (x: number) => { v.setUint16(p, x, true); p += 2; };
  const u32 = (x: number) => { v.setUint32(p, x >>> 0, true); p += 4; };
  const bytes = (b: Uint8Array) => { out.set(b, p); p += b.length; };
  const FLAGS = 0x0800;  // bit 11: the name is UTF-8
  const offsets: number[] = [];
  for (const [i, e] of entries.entries()) {
    offsets.push(p);
    u32(0x04034b50);
    u16(20);             // version needed: 2.0
    u16(FLAGS);
    u16(0);              // method: stored
    u16(time);
    u16(date);
    u32(crcs[i]!);
    u32(e.data.length);  // compressed size = size
    u32(e.data.length);
    u16(names[i]!.length);
    u16(0);              // extra field length
    bytes(names[i]!);
    bytes(e.data);
  }
  const central = p;
  for (const [i, e] of entries.entries()) {
    u32(0x02014b50);
    u16(20);             // version made by: 2.0, MS-DOS attributes
    u16(20);
    u16(FLAGS);
    u16(0);
    u16(time);
    u16(date);
    u32(crcs[i]!);
    u32(e.data.length);
    u32(e.data.length);
    u16(names[i]!.length);
    u16(0);              // extra
    u16(0);              // comment
    u16(0);              // disk number start
    u16(0);              // internal attributes
    u32(0);              // external attributes
    u32(offsets[i]!);
    bytes(names[i]!);
  }
  const centralEnd = p;
  u32(0x06054b50);
  u16(0);                // this disk
  u16(0);                // the disk with the central directory
  u16(entries.length);
  u16(entries.length);
  u32(centralEnd - central);  // central directory size
  u32(central);
  u16(0);                // comment length
  return out;
}
