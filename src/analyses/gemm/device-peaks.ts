/**
 * Device peaks for the GEMM roofline (docs/readings.md S7): the dense FLOP/s a GPU's datasheet
 * states per data type, and its memory bandwidth — as data, each number with where it comes from.
 *
 * Every figure is DENSE: NVIDIA prints Tensor Core figures "with sparsity" (2:4 structured
 * sparsity doubles them); those are halved here, and the note says so. AMD's tables give dense
 * figures beside the sparse ones. Integer rates are TOPS, stored under `int8`. FP64 is the
 * matrix (Tensor Core / Matrix Core) rate where the datasheet has one, FP32 the non-tensor
 * (vector) rate on NVIDIA, where a plain FP32 GEMM runs unless TF32 is allowed.
 *
 * Numbers no source we could read confirms are left out (the lookup then says "no peak for
 * this dtype") rather than guessed. Peaks are at boost clocks; a GPU that throttles reaches less.
 *
 * Handles: lookup from Kineto's `deviceProperties` (name, memory, SM/CU count); GPUs split into
 * partitions (an MI250X GCD, MI300X CPX partitions, MIG slices) scaled by their share of SMs/CUs;
 * measured peaks given by the user (`parsePeaksJson`). Ignores: clocks, power caps, ECC.
 */
import type { DeviceProperties } from '../../model/trace-model.js';

export type PeakDtype = 'fp64' | 'fp32' | 'tf32' | 'bf16' | 'fp16' | 'fp8' | 'int8';
export const PEAK_DTYPES: readonly PeakDtype[] = ['fp64', 'fp32', 'tf32', 'bf16', 'fp16', 'fp8', 'int8'];

export interface PeakSource {
  /** The document's title as published. */
  readonly title: string;
  readonly url: string;
  /** Where we read the figures when the vendor document itself was not at hand (a faithful copy or quote). */
  readonly seenAt?: readonly string[];
}

export interface DevicePeakEntry {
  readonly id: string;
  readonly name: string;
  readonly vendor: 'NVIDIA' | 'AMD';
  /** Dense peak per dtype: TFLOP/s (TOPS for int8), for the whole product. */
  readonly denseTflops: Readonly<Partial<Record<PeakDtype, number>>>;
  readonly memoryBandwidthGBs: number;
  /** SMs (NVIDIA) or CUs (AMD) of the whole product, for partitions; absent where unconfirmed. */
  readonly smCount?: number;
  readonly sources: readonly PeakSource[];
  readonly notes?: string;
  /** How `deviceProperties` names it. */
  readonly match: {
    readonly name: RegExp;
    readonly not?: RegExp;
    readonly minMemGiB?: number;
    readonly maxMemGiB?: number;
    /**
     * ROCm often names an Instinct GPU generically ("AMD Radeon Graphics"): then the CU count
     * (`numSms`) and memory decide, when no entry matched by name.
     */
    readonly genericCus?: readonly number[];
    /** Memory range (GiB) that goes with `genericCus`. */
    readonly genericMemGiB?: readonly [number, number];
  };
}

/** Names ROCm gives an Instinct GPU when the marketing name is not known to it. */
const GENERIC_AMD_NAME = /^(AMD Radeon Graphics|AMD Instinct|Device [0-9a-f]{4})?$/i;

const NVIDIA_SPARSE_NOTE = 'NVIDIA states Tensor Core figures with sparsity; dense = half.';

const A100_DATASHEET: PeakSource = {
  title: 'NVIDIA A100 Tensor Core GPU datasheet',
  url: 'https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf',
  seenAt: ['https://glennklockwood.com/garden/processors/A100', 'https://www.thundercompute.com/blog/nvidia-a100-specs-full-guide'],
};
const A100_FLOPS = { fp64: 19.5, fp32: 19.5, tf32: 156, bf16: 312, fp16: 312, int8: 624 } as const;
const A100_NOTE = `${NVIDIA_SPARSE_NOTE} FP64 is the FP64 Tensor Core rate. All A100 variants share the FLOP rates; bandwidth differs.`;

const H100_DATASHEET: PeakSource = {
  title: 'NVIDIA H100 Tensor Core GPU datasheet',
  url: 'https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet',
  seenAt: ['https://archive-lib.hpctech.co.jp/gpuproduct/nvidia-h100.html', 'https://glennklockwood.com/garden/processors/h100'],
};

/** The table. Order matters only where two entries could match one name (the first wins). */
export const DEVICE_PEAKS: readonly DevicePeakEntry[] = [
  {
    id: 'nvidia-a100-sxm4-80gb',
    name: 'NVIDIA A100 SXM4 80GB',
    vendor: 'NVIDIA',
    denseTflops: A100_FLOPS,
    memoryBandwidthGBs: 2039,
    smCount: 108,
    sources: [A100_DATASHEET],
    notes: A100_NOTE,
    match: { name: /\bA100\b/i, not: /PCI/i, minMemGiB: 60 },
  },
  {
    id: 'nvidia-a100-sxm4-40gb',
    name: 'NVIDIA A100 SXM4 40GB',
    vendor: 'NVIDIA',
    denseTflops: A100_FLOPS,
    memoryBandwidthGBs: 1555,
    smCount: 108,
    sources: [A100_DATASHEET],
    notes: A100_NOTE,
    match: { name: /\bA100\b/i, not: /PCI/i, maxMemGiB: 60 },
  },
  {
    id: 'nvidia-a100-pcie-80gb',
    name: 'NVIDIA A100 PCIe 80GB',
    vendor: 'NVIDIA',
    denseTflops: A100_FLOPS,
    memoryBandwidthGBs: 1935,
    smCount: 108,
    sources: [A100_DATASHEET],
    notes: A100_NOTE,
    match: { name: /\bA100\b.*PCI/i, minMemGiB: 60 },
  },
  {
    id: 'nvidia-a100-pcie-40gb',
    name: 'NVIDIA A100 PCIe 40GB',
    vendor: 'NVIDIA',
    denseTflops: A100_FLOPS,
    memoryBandwidthGBs: 1555,
    smCount: 108,
    sources: [A100_DATASHEET],
    notes: A100_NOTE,
    match: { name: /\bA100\b.*PCI/i, maxMemGiB: 60 },
  },
  {
    id: 'nvidia-h100-pcie',
    name: 'NVIDIA H100 PCIe',
    vendor: 'NVIDIA',
    // datasheet: FP64 Tensor 51, FP32 51, TF32 756*, BF16/FP16 1,513*, FP8/INT8 3,026* (* with sparsity)
    denseTflops: { fp64: 51, fp32: 51, tf32: 378, bf16: 756.5, fp16: 756.5, fp8: 1513, int8: 1513 },
    memoryBandwidthGBs: 2000,
    smCount: 114,
    sources: [H100_DATASHEET],
    notes: `${NVIDIA_SPARSE_NOTE} FP64 is the FP64 Tensor Core rate.`,
    match: { name: /\bH100\b.*PCI/i },
  },
  {
    id: 'nvidia-h100-sxm',
    name: 'NVIDIA H100 SXM',
    vendor: 'NVIDIA',
    // datasheet: FP64 Tensor 67, FP32 67, TF32 989*, BF16/FP16 1,979*, FP8/INT8 3,958* (* with sparsity)
    denseTflops: { fp64: 67, fp32: 67, tf32: 494.5, bf16: 989.5, fp16: 989.5, fp8: 1979, int8: 1979 },
    memoryBandwidthGBs: 3350,
    smCount: 132,
    sources: [H100_DATASHEET],
    notes: `${NVIDIA_SPARSE_NOTE} FP64 is the FP64 Tensor Core rate. torch names the SXM part "NVIDIA H100 80GB HBM3"; H100 NVL is not this entry.`,
    match: { name: /\bH100\b/i, not: /PCI|NVL/i },
  },
  {
    id: 'nvidia-h200',
    name: 'NVIDIA H200 SXM',
    vendor: 'NVIDIA',
    // NVIDIA H200 page: BF16/FP16 1,979*, FP8/INT8 3,958*, FP64 34 (Tensor 67), 4.8 TB/s
    denseTflops: { fp64: 67, fp32: 67, tf32: 494.5, bf16: 989.5, fp16: 989.5, fp8: 1979, int8: 1979 },
    memoryBandwidthGBs: 4800,
    smCount: 132,
    sources: [
      {
        title: 'NVIDIA H200 Tensor Core GPU',
        url: 'https://www.nvidia.com/en-us/data-center/h200/',
        seenAt: [
          'https://www.morphllm.com/nvidia-h200',
          'https://itkb.uw.cz/2026/06/nvidia-h200-vs-b300-precisions-cores.html',
          'https://lzwjava.github.io/nvidia-h200-gpu-specs-en',
        ],
      },
      H100_DATASHEET,
    ],
    notes:
      `${NVIDIA_SPARSE_NOTE} H200 is H100 SXM's GH100 configuration (132 SMs, same clocks) with HBM3e: ` +
      'FP32 and TF32 are H100 SXM\'s figures. H200 NVL (lower clocks) is not this entry.',
    match: { name: /\bH200\b/i, not: /NVL/i },
  },
  {
    id: 'nvidia-b200',
    name: 'NVIDIA B200 (HGX, 1,000 W)',
    vendor: 'NVIDIA',
    // HGX B200, per GPU: FP8 9 PF*, INT8 9 POPS*, FP16/BF16 4.5 PF*, TF32 2.2 PF*, FP32 75 TF, FP64/FP64 Tensor 37 TF, 7.7 TB/s
    denseTflops: { fp64: 37, fp32: 75, tf32: 1100, bf16: 2250, fp16: 2250, fp8: 4500, int8: 4500 },
    memoryBandwidthGBs: 7700,
    sources: [
      {
        title: 'NVIDIA HGX Platform — technical specifications (HGX B200)',
        url: 'https://www.nvidia.com/en-us/data-center/hgx/',
        seenAt: ['https://zdszero.github.io/Computer/Artificial_Intelligence/Hardware.html', 'https://glennklockwood.com/garden/processors/B200'],
      },
    ],
    notes:
      `${NVIDIA_SPARSE_NOTE} HGX B200 at 1,000 W. NVIDIA's DGX B200 page gives 64 TB/s for eight GPUs (8 TB/s each); ` +
      'the HGX table, used here, 7.7 TB/s.',
    match: { name: /\bB200\b/i, not: /GB200/i },
  },
  {
    id: 'nvidia-l40s',
    name: 'NVIDIA L40S',
    vendor: 'NVIDIA',
    // datasheet: FP32 91.6, TF32 183 | 366*, BF16/FP16 362.05 | 733*, FP8 733 | 1,466*, 864 GB/s
    denseTflops: { fp32: 91.6, tf32: 183, bf16: 362.05, fp16: 362.05, fp8: 733 },
    memoryBandwidthGBs: 864,
    smCount: 142,
    sources: [
      {
        title: 'NVIDIA L40S datasheet',
        url: 'https://resources.nvidia.com/en-us-l40s/l40s-datasheet-28413',
        seenAt: ['https://www.mullet.se/product.html?product_id=355414', 'https://omegaco.ae/shop/gpu-cards-edge-ai/nvidia-l40s'],
      },
    ],
    notes: `${NVIDIA_SPARSE_NOTE} The datasheet states no FP64 rate; its INT8 line was not legible in the copies we read, so it is left out.`,
    match: { name: /\bL40S\b/i },
  },
  {
    id: 'nvidia-l4',
    name: 'NVIDIA L4',
    vendor: 'NVIDIA',
    // datasheet: FP32 30.3, TF32 120*, FP16 242*, FP8 485*, INT8 485* (* with sparsity), 300 GB/s
    denseTflops: { fp32: 30.3, tf32: 60, fp16: 121, fp8: 242.5, int8: 242.5 },
    memoryBandwidthGBs: 300,
    sources: [
      {
        title: 'NVIDIA L4 Tensor Core GPU datasheet',
        url: 'https://www.nvidia.com/en-us/data-center/l4/',
        seenAt: ['https://grokipedia.com/page/NVIDIA_L4_vs_L40S', 'https://store.sourcecode.com/en-us/bg-bucket-compare/125/9820'],
      },
    ],
    notes: `${NVIDIA_SPARSE_NOTE} The BF16 line could not be confirmed in the copies we read and is left out; the datasheet states no FP64 rate.`,
    match: { name: /\bL4\b/i },
  },
  {
    id: 'amd-mi250x',
    name: 'AMD Instinct MI250X (OAM, 2 GCDs)',
    vendor: 'AMD',
    // FP64/FP32 matrix 95.7, FP16/BF16 383.0, INT8 383.0 TOPS, 3.2 TB/s — for the package (two GCDs)
    denseTflops: { fp64: 95.7, fp32: 95.7, bf16: 383, fp16: 383, int8: 383 },
    memoryBandwidthGBs: 3200,
    smCount: 220,
    sources: [
      {
        title: 'AMD Instinct MI250X Accelerator (product specifications)',
        url: 'https://www.amd.com/en/products/accelerators/instinct/mi200/mi250x.html',
        seenAt: ['https://zexron.com/amd-mi250-x-aldebaran-as-mcm-with-up-to-479-teraflop-s-and-560-watt-tdp'],
      },
      {
        title: 'AMD Instinct MI250 microarchitecture (ROCm documentation)',
        url: 'https://rocm.docs.amd.com/en/latest/conceptual/gpu-arch/mi250.html',
      },
    ],
    notes:
      'Figures are for the OAM package; each GCD is one device to torch (110 CUs, 1.6 TB/s), so a GCD gets half ' +
      '(scaled by CUs). FP64/FP32 are the matrix rates. No TF32 on CDNA 2.',
    // A GCD (110 CUs, 64 GiB) is what torch sees; 220 for a package seen whole.
    match: { name: /\bMI250X\b/i, genericCus: [110, 220], genericMemGiB: [48, 130] },
  },
  {
    id: 'amd-mi300x',
    name: 'AMD Instinct MI300X',
    vendor: 'AMD',
    denseTflops: { fp64: 163.4, fp32: 163.4, tf32: 653.7, bf16: 1307.4, fp16: 1307.4, fp8: 2614.9, int8: 2614.9 },
    memoryBandwidthGBs: 5300,
    smCount: 304,
    sources: [
      {
        title: 'AMD Instinct MI300 series microarchitecture (ROCm documentation), table "Peak-performance capabilities of the MI300X"',
        url: 'https://rocm.docs.amd.com/en/latest/conceptual/gpu-arch/mi300.html',
        seenAt: ['https://github.com/ROCm/legacy-rocm-build/blob/089d7513c55fc7b6edb2a75b83cb40ca883a0ec2/docs/conceptual/gpu-arch/mi300.md'],
      },
    ],
    notes: 'Dense figures (AMD lists sparsity separately). FP64/FP32 are the matrix rates.',
    match: { name: /\bMI300X\b/i, genericCus: [304], genericMemGiB: [160, 224] },
  },
  {
    id: 'amd-mi325x',
    name: 'AMD Instinct MI325X',
    vendor: 'AMD',
    denseTflops: { fp32: 163.4, tf32: 653.7, bf16: 1307.4, fp16: 1307.4, fp8: 2614.9 },
    memoryBandwidthGBs: 6000,
    smCount: 304,
    sources: [
      {
        title: 'AMD Instinct MI325X Accelerators (product specifications)',
        url: 'https://www.amd.com/en/products/accelerators/instinct/mi300/mi325x.html',
        seenAt: ['https://awesomeagents.ai/hardware/amd-mi325x'],
      },
    ],
    notes: 'Dense figures (FP8 with sparsity is 5,229.8). FP64 and INT8 could not be confirmed and are left out.',
    match: { name: /\bMI325X\b/i, genericCus: [304], genericMemGiB: [224, 272] },
  },
  {
    id: 'amd-mi355x',
    name: 'AMD Instinct MI355X',
    vendor: 'AMD',
    denseTflops: { fp8: 5000 },
    memoryBandwidthGBs: 8000,
    smCount: 256,
    sources: [
      {
        title: 'AMD Instinct MI355X GPU (product specifications)',
        url: 'https://www.amd.com/en/products/accelerators/instinct/mi350/mi355x.html',
        seenAt: [
          'https://www.tomshardware.com/pc-components/gpus/amds-instinct-mi355x-accelerator-will-consume-1-400-watts',
          'https://www.world-today-news.com/?p=7253162',
        ],
      },
    ],
    notes:
      'FP8 dense "five petaflops" (AMD at ISSCC 2026: 256 CUs × 8,192 FLOPs/clock); 288 GB HBM3E at 8 TB/s. ' +
      'BF16/FP16, FP32, FP64 and INT8 could not be confirmed and are left out.',
    match: { name: /\bMI355X\b/i, genericCus: [256], genericMemGiB: [272, 320] },
  },
];

export type PeaksOrigin = 'datasheet' | 'file' | 'datasheet+file';

/** Peaks as used for one device: the table entry (scaled to a partition if need be), overridden by the user's file. */
export interface ResolvedPeaks {
  readonly id: string;
  readonly name: string;
  readonly denseTflops: Partial<Record<PeakDtype, number>>;
  readonly memoryBandwidthGBs?: number;
  readonly origin: PeaksOrigin;
  readonly sources: readonly PeakSource[];
  readonly notes: string[];
  /** Fraction of the product this device is (SMs/CUs seen ÷ the product's), when below 1. */
  readonly partitionScale?: number;
}

const GIB = 1024 ** 3;

/** The table entry for a device as Kineto describes it, or undefined. */
export function findDevicePeakEntry(device: Pick<DeviceProperties, 'name' | 'totalGlobalMem' | 'numSms'>): DevicePeakEntry | undefined {
  const name = device.name;
  if (name === undefined) return undefined;
  const memGiB = typeof device.totalGlobalMem === 'number' ? device.totalGlobalMem / GIB : undefined;
  const byName = findByName(name, memGiB);
  if (byName || !GENERIC_AMD_NAME.test(name) || typeof device.numSms !== 'number' || memGiB === undefined) return byName;
  return DEVICE_PEAKS.find((e) => {
    const range = e.match.genericMemGiB;
    return e.match.genericCus?.includes(device.numSms as number) && range !== undefined && memGiB >= range[0] && memGiB <= range[1];
  });
}

function findByName(name: string, memGiB: number | undefined): DevicePeakEntry | undefined {
  if (!name) return undefined;
  for (const e of DEVICE_PEAKS) {
    const m = e.match;
    if (!m.name.test(name) || (m.not && m.not.test(name))) continue;
    // Without a memory size, an "80GB"/"40GB" in the name decides; else the first entry wins.
    const mem = memGiB ?? (/\b80\s?GB\b/i.test(name) ? 80 : /\b40\s?GB\b/i.test(name) ? 40 : undefined);
    if (mem !== undefined && m.minMemGiB !== undefined && mem < m.minMemGiB) continue;
    if (mem !== undefined && m.maxMemGiB !== undefined && mem > m.maxMemGiB) continue;
    return e;
  }
  return undefined;
}

/** A table entry by id (`nvidia-h100-sxm`) or by a name it matches (`H100 SXM`, `MI300X`). */
export function findDevicePeakEntryByName(query: string): DevicePeakEntry | undefined {
  const q = query.trim().toLowerCase();
  return DEVICE_PEAKS.find((e) => e.id === q) ?? DEVICE_PEAKS.find((e) => e.name.toLowerCase().includes(q)) ?? findDevicePeakEntry({ name: query });
}

/** Scales an entry to the device seen (a GCD, a partition) and applies the user's measured peaks. */
export function resolvePeaks(
  entry: DevicePeakEntry | undefined,
  device: Pick<DeviceProperties, 'numSms'> | undefined,
  user?: UserPeaks,
): ResolvedPeaks | undefined {
  if (!entry && !user) return undefined;
  const notes: string[] = [];
  let denseTflops: Partial<Record<PeakDtype, number>> = {};
  let memoryBandwidthGBs: number | undefined;
  let partitionScale: number | undefined;
  if (entry) {
    const sms = device?.numSms;
    if (entry.smCount && typeof sms === 'number' && sms > 0 && sms < entry.smCount) {
      partitionScale = sms / entry.smCount;
      notes.push(
        `the device has ${sms} of the ${entry.smCount} ${entry.vendor === 'AMD' ? 'CUs' : 'SMs'} of a full ${entry.name}: ` +
          `peaks and bandwidth scaled by ${sms}/${entry.smCount}`,
      );
    }
    const s = partitionScale ?? 1;
    for (const d of PEAK_DTYPES) {
      const v = entry.denseTflops[d];
      if (v !== undefined) denseTflops[d] = v * s;
    }
    memoryBandwidthGBs = entry.memoryBandwidthGBs * s;
    if (entry.notes) notes.push(entry.notes);
  }
  if (user) {
    denseTflops = { ...denseTflops, ...user.denseTflops };
    if (user.memoryBandwidthGBs !== undefined) memoryBandwidthGBs = user.memoryBandwidthGBs;
    notes.push(`measured peaks from ${user.label}: ${describeUserPeaks(user)}`);
  }
  return {
    id: entry?.id ?? 'user',
    name: user?.name ?? entry!.name,
    denseTflops,
    memoryBandwidthGBs,
    origin: entry && user ? 'datasheet+file' : entry ? 'datasheet' : 'file',
    sources: entry?.sources ?? [],
    notes,
    ...(partitionScale !== undefined ? { partitionScale } : {}),
  };
}

// ------------------------------------------------------------------------------------------------
// The user's measured peaks (`--peaks FILE`)

export interface UserPeaks {
  readonly name?: string;
  /** Where they came from, for notes: the file's path. */
  readonly label: string;
  readonly denseTflops: Partial<Record<PeakDtype, number>>;
  readonly memoryBandwidthGBs?: number;
}

/** Accepted flat keys: `bf16TFlops` (any case of TFlops/Tflops/TFLOPS), `int8Tops`, `memoryBandwidthGBs`. */
const FLAT_KEY = /^(fp64|fp32|tf32|bf16|fp16|fp8|int8)(tflops|tops)$/i;

/**
 * Reads measured peaks: `{ "name"?, "bf16TFlops": 700, "fp32TFlops": …, "int8Tops": …,
 * "memoryBandwidthGBs": 4000 }`, or the nested form `{ "denseTflops": { "bf16": 700 }, "memoryBandwidthGBs": … }`.
 * Returns a list of problems instead of throwing, so the caller words the error.
 */
export function parsePeaksJson(value: unknown, label: string): { peaks?: UserPeaks; problems: string[] } {
  const problems: string[] = [];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { problems: ['expected a JSON object such as {"bf16TFlops": 700, "memoryBandwidthGBs": 4000}'] };
  }
  const obj = value as Record<string, unknown>;
  const denseTflops: Partial<Record<PeakDtype, number>> = {};
  let memoryBandwidthGBs: number | undefined;
  let name: string | undefined;
  const num = (key: string, v: unknown): number | undefined => {
    if (typeof v === 'number' && Number.isFinite(v) && v > 0) return v;
    problems.push(`${key} must be a positive number`);
    return undefined;
  };
  for (const [key, v] of Object.entries(obj)) {
    const flat = FLAT_KEY.exec(key);
    if (flat) {
      const n = num(key, v);
      if (n !== undefined) denseTflops[flat[1]!.toLowerCase() as PeakDtype] = n;
    } else if (key === 'denseTflops' && typeof v === 'object' && v !== null) {
      for (const [d, x] of Object.entries(v as Record<string, unknown>)) {
        if (!(PEAK_DTYPES as readonly string[]).includes(d)) {
          problems.push(`denseTflops.${d}: unknown dtype (one of ${PEAK_DTYPES.join(', ')})`);
          continue;
        }
        const n = num(`denseTflops.${d}`, x);
        if (n !== undefined) denseTflops[d as PeakDtype] = n;
      }
    } else if (/^memoryBandwidthGBs$/i.test(key) || /^memoryBandwidthGBps$/i.test(key)) {
      memoryBandwidthGBs = num(key, v);
    } else if (key === 'name' || key === 'id') {
      if (typeof v === 'string') name = v;
    } else if (key === 'sources' || key === 'notes' || key === 'origin') {
      // round-tripped from `--json` output: ignored
    } else {
      problems.push(`unknown key "${key}" (expected e.g. bf16TFlops, fp32TFlops, tf32TFlops, fp8TFlops, int8Tops, memoryBandwidthGBs)`);
    }
  }
  if (Object.keys(denseTflops).length === 0 && memoryBandwidthGBs === undefined && problems.length === 0) {
    problems.push('no peak given (expected e.g. {"bf16TFlops": 700, "memoryBandwidthGBs": 4000})');
  }
  if (problems.length) return { problems };
  return { peaks: { ...(name ? { name } : {}), label, denseTflops, ...(memoryBandwidthGBs !== undefined ? { memoryBandwidthGBs } : {}) }, problems };
}

function describeUserPeaks(u: UserPeaks): string {
  const parts = PEAK_DTYPES.filter((d) => u.denseTflops[d] !== undefined).map((d) => `${d} ${u.denseTflops[d]} ${d === 'int8' ? 'TOPS' : 'TFLOP/s'}`);
  if (u.memoryBandwidthGBs !== undefined) parts.push(`${u.memoryBandwidthGBs} GB/s`);
  return parts.join(', ');
}
