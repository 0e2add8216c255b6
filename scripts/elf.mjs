// A small reader of what a Linux loader asks of a 64-bit little-endian ELF shared object: its machine,
// the libraries it names (DT_NEEDED), the symbol versions it requires (.gnu.version_r) and which symbol
// asks for each, and what it exports. Enough to tell, without binutils for the target architecture,
// whether a prebuild loads on glibc 2.28 or on musl (docs/prebuilds.md). Bad input throws ElfError.

export class ElfError extends Error {}

export const EM_X86_64 = 62;
export const EM_AARCH64 = 183;
const ET_DYN = 3;
const SHT_DYNAMIC = 6;
const SHT_DYNSYM = 11;
const SHT_GNU_VERNEED = 0x6ffffffe;
const SHT_GNU_VERSYM = 0x6fffffff;
const DT_NEEDED = 1;
const SHN_UNDEF = 0;
const STB_GLOBAL = 1;
const STB_WEAK = 2;
const STV_DEFAULT = 0;

function view(bytes) {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const need = (at, size, what) => {
    if (!Number.isSafeInteger(at) || at < 0 || at + size > b.length) throw new ElfError(`truncated ELF file (${what} at ${at})`);
  };
  const u16 = (at, what) => (need(at, 2, what), b.readUInt16LE(at));
  const u32 = (at, what) => (need(at, 4, what), b.readUInt32LE(at));
  const u64 = (at, what) => {
    need(at, 8, what);
    const v = b.readBigUInt64LE(at);
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new ElfError(`impossible ${what} (${v})`);
    return Number(v);
  };
  const str = (table, offset, what) => {
    const start = table.offset + offset;
    if (offset >= table.size) throw new ElfError(`${what}: string offset ${offset} outside its table`);
    const end = b.indexOf(0, start);
    if (end < 0 || end >= table.offset + table.size) throw new ElfError(`${what}: unterminated string`);
    return b.toString('latin1', start, end);
  };
  return { length: b.length, u16, u32, u64, str };
}

/**
 * { machine, type, needed: string[], requirements: [{ file, version }], symbols: [{ name, defined,
 * binding, version }], exports: string[] } of `bytes`; throws ElfError when it is not a 64-bit
 * little-endian ELF file or a table runs outside it.
 */
export function readElf(bytes) {
  const v = view(bytes);
  if (v.length < 64 || v.u32(0, 'magic') !== 0x464c457f) throw new ElfError('not an ELF file');
  if (bytes[4] !== 2) throw new ElfError('not a 64-bit ELF file');
  if (bytes[5] !== 1) throw new ElfError('not a little-endian ELF file');
  const type = v.u16(16, 'e_type');
  const machine = v.u16(18, 'e_machine');
  const shoff = v.u64(40, 'e_shoff');
  const shentsize = v.u16(58, 'e_shentsize');
  const shnum = v.u16(60, 'e_shnum');
  if (shnum === 0 || shentsize < 64) throw new ElfError('no section headers');
  const sections = [];
  for (let i = 0; i < shnum; i++) {
    const at = shoff + i * shentsize;
    sections.push({
      type: v.u32(at + 4, 'sh_type'),
      offset: v.u64(at + 24, 'sh_offset'),
      size: v.u64(at + 32, 'sh_size'),
      link: v.u32(at + 40, 'sh_link'),
      info: v.u32(at + 44, 'sh_info'),
      entsize: v.u64(at + 56, 'sh_entsize'),
    });
  }
  const linked = (section, what) => {
    const table = sections[section.link];
    if (!table || table.offset + table.size > v.length) throw new ElfError(`${what}: its string table is missing`);
    return table;
  };
  const dynsym = sections.find((s) => s.type === SHT_DYNSYM);
  if (!dynsym) throw new ElfError('no dynamic symbol table');
  const dynstr = linked(dynsym, '.dynsym');

  // Version indexes (vna_other) → the library and version they name.
  const versions = new Map();
  const requirements = [];
  const verneed = sections.find((s) => s.type === SHT_GNU_VERNEED);
  if (verneed) {
    const strings = linked(verneed, '.gnu.version_r');
    let at = verneed.offset;
    for (let n = 0; n < verneed.info; n++) {
      const count = v.u16(at + 2, 'vn_cnt');
      const file = v.str(strings, v.u32(at + 4, 'vn_file'), 'vn_file');
      let aux = at + v.u32(at + 8, 'vn_aux');
      for (let k = 0; k < count; k++) {
        const version = v.str(strings, v.u32(aux + 8, 'vna_name'), 'vna_name');
        versions.set(v.u16(aux + 6, 'vna_other'), { file, version });
        requirements.push({ file, version });
        const next = v.u32(aux + 12, 'vna_next');
        if (next === 0) break;
        aux += next;
      }
      const next = v.u32(at + 12, 'vn_next');
      if (next === 0) break;
      at += next;
    }
  }
  const versym = sections.find((s) => s.type === SHT_GNU_VERSYM);

  const symbols = [];
  const entsize = dynsym.entsize || 24;
  if (entsize < 24) throw new ElfError('.dynsym entries too small');
  const count = Math.floor(dynsym.size / entsize);
  for (let i = 1; i < count; i++) {
    const at = dynsym.offset + i * entsize;
    const info = v.u16(at + 4, 'st_info') & 0xff;
    const other = v.u16(at + 4, 'st_other') >> 8;
    const shndx = v.u16(at + 6, 'st_shndx');
    const index = versym ? v.u16(versym.offset + i * 2, 'versym') & 0x7fff : 1;
    symbols.push({
      name: v.str(dynstr, v.u32(at, 'st_name'), 'st_name'),
      defined: shndx !== SHN_UNDEF,
      binding: info >> 4,
      visible: (other & 0x3) === STV_DEFAULT,
      version: versions.get(index)?.version,
    });
  }

  const needed = [];
  const dynamic = sections.find((s) => s.type === SHT_DYNAMIC);
  if (dynamic) {
    const strings = linked(dynamic, '.dynamic');
    for (let at = dynamic.offset; at + 16 <= dynamic.offset + dynamic.size; at += 16) {
      const tag = v.u64(at, 'd_tag');
      if (tag === 0) break;
      if (tag === DT_NEEDED) needed.push(v.str(strings, v.u64(at + 8, 'd_val'), 'DT_NEEDED'));
    }
  }
  const exports = symbols
    .filter((s) => s.defined && s.visible && (s.binding === STB_GLOBAL || s.binding === STB_WEAK))
    .map((s) => s.name);
  return { machine, type, needed, requirements, symbols, exports };
}

/** 'GLIBC_2.28' → [2, 28]; undefined for other version names. */
function glibcVersion(name) {
  const m = /^GLIBC_(\d+)\.(\d+)(?:\.(\d+))?$/.exec(name ?? '');
  return m ? [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)] : undefined;
}

function compareVersions(a, b) {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

/** The highest GLIBC_x.y among `requirements`, with one symbol that asks for it; undefined if none. */
export function highestGlibc(elf) {
  let best;
  for (const { version } of elf.requirements) {
    const parsed = glibcVersion(version);
    if (parsed && (!best || compareVersions(parsed, best.parsed) > 0)) best = { version, parsed };
  }
  if (!best) return undefined;
  const symbol = elf.symbols.find((s) => !s.defined && s.version === best.version)?.name;
  return { version: best.version, symbol };
}

// What Node looks up in an N-API addon (NODE_API_MODULE defines it).
export const REGISTER_SYMBOL = 'napi_register_module_v1';

/**
 * Why `bytes` is not a Linux N-API addon for `machine` and `libc` that loads on glibc `floor` (or on any
 * musl): a list of sentences, empty when it is one.
 */
export function linuxAddonProblems(bytes, { machine, libc, floor = '2.28' }) {
  let elf;
  try {
    elf = readElf(bytes);
  } catch (err) {
    if (err instanceof ElfError) return [err.message];
    throw err;
  }
  const problems = [];
  if (elf.machine !== machine) problems.push(`machine ${elf.machine}, not ${machine}`);
  if (elf.type !== ET_DYN) problems.push(`ELF type ${elf.type}, not a shared object`);
  if (!elf.exports.includes(REGISTER_SYMBOL)) problems.push(`${REGISTER_SYMBOL} is not exported`);
  // A prebuild carries its own C++ library: Node's libstdc++ is neither promised nor the same ABI.
  for (const r of elf.requirements) {
    if (!/^GLIBC_/.test(r.version)) problems.push(`asks for ${r.version} from ${r.file}`);
  }
  for (const lib of elf.needed) {
    if (/^lib(std)?c\+\+/.test(lib)) problems.push(`needs ${lib}`);
  }
  if (libc === 'glibc') {
    const top = highestGlibc(elf);
    const limit = glibcVersion(`GLIBC_${floor}`);
    if (top && compareVersions(glibcVersion(top.version), limit) > 0) {
      problems.push(`asks for ${top.version} (${top.symbol ?? 'a symbol'}), newer than the GLIBC_${floor} floor`);
    }
    if (!elf.needed.includes('libc.so.6')) problems.push('does not name libc.so.6');
  } else {
    const glibc = elf.requirements.filter((r) => /^GLIBC_/.test(r.version));
    if (glibc.length > 0) problems.push(`a musl build asking for ${glibc[0].version}`);
    const foreign = elf.needed.filter((lib) => /\.so\.\d/.test(lib) && !/^libc\.musl-/.test(lib));
    if (foreign.length > 0) problems.push(`a musl build naming glibc's ${foreign.join(', ')}`);
  }
  return problems;
}
