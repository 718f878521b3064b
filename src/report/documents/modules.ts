/** The JSON document of `kinetoscope modules --json`: every field, its type and its meaning. */
import { z } from 'zod';
import { jsonDocument, obj } from './kit.js';
import { readerDiagnostics } from './shared.js';

const topKernel = obj({
  name: z.string().describe("the GPU activity's name (kernel, copy or memset)"),
  durUs: z.number().describe('its durations summed, µs'),
  count: z.number().describe('its activities, count'),
});

export const modulesDocument = jsonDocument(
  'kinetoscope modules --json',
  "kinetoscope modules --json: the nn.Module tree of the run, from the 'nn.Module: Name_k' python frames (with_stack or with_modules): per module (one node per path in the tree, over all its calls) its calls, host and device time (forward, and backward work linked by fwdbwd flows), allocated bytes, top kernels; and the GPU work outside every module",
  obj({
    schemaVersion: z.number(),
    status: z.enum(['ok', 'no-python-frames', 'no-module-frames', 'not-loaded']).describe("'ok'; 'no-python-frames' (captured without with_stack / with_modules), 'no-module-frames' (python frames but no nn.Module frame), 'not-loaded' (python frames left out when loading)"),
    message: z.string().nullable().describe('the sentence saying why there is no module tree and how to capture one; null when status is ok'),
    backwardLinks: z.number().describe("fwdbwd links (autograd's forward op → backward op) whose forward op runs in a module, count; 0: backward work is counted outside every module"),
    deviceUs: z.number().describe('all GPU work of the trace (kernels, copies, memsets), durations summed, µs: the base of the shares'),
    outside: obj({
      deviceUs: z.number().describe('its durations summed, µs'),
      topKernels: z.array(topKernel).describe('its heaviest activity names, longest first, at most 5'),
    }).describe('GPU work whose owning op lies outside every module frame and is not linked to a module’s backward (optimizer steps, data movement, unlinked backward)'),
    modules: z.array(obj({
      path: z.string().describe("the module's names from the root, joined with '/' (identifies the node)"),
      name: z.string().describe("the module's frame name: its class and per-class instance number (GPT2Block_3)"),
      className: z.string().describe('the class: the name less its instance number'),
      depth: z.number().describe('its depth in the tree (0 for a root)'),
      calls: z.number().describe('frames (calls) of this module at this path, count'),
      hostSelfUs: z.number().describe('hostTotalUs less its child modules’ frames, µs'),
      hostTotalUs: z.number().describe('its frames’ durations summed (forward host time), µs'),
      deviceSelfUs: z.number().describe('forward GPU work (kernels, copies, memsets) owned by ops whose innermost module frame is this one, durations summed, µs'),
      deviceTotalUs: z.number().describe('deviceSelfUs plus its children’s deviceTotalUs, µs'),
      backward: obj({
        deviceSelfUs: z.number().describe("GPU work owned by backward ops linked to this module's forward ops, durations summed, µs"),
        deviceTotalUs: z.number().describe('backward deviceSelfUs plus its children’s backward deviceTotalUs, µs'),
        hostSelfUs: z.number().describe('durations of the linked backward ops (not nested in another linked backward op) summed, µs'),
        hostTotalUs: z.number().describe('backward hostSelfUs plus its children’s backward hostTotalUs, µs'),
      }).describe("backward work linked to this module's forward ops (fwdbwd flows); all 0 without links"),
      allocatedDeviceSelfBytes: z.number().describe('device memory allocated inside its frames on the frame’s thread (Σ positive Bytes of [memory] records whose innermost module frame is this one; profile_memory), bytes; 0 without records'),
      allocatedDeviceTotalBytes: z.number().describe('allocatedDeviceSelfBytes plus its children’s totals, bytes'),
      allocatedCpuSelfBytes: z.number().describe('CPU memory allocated the same way, bytes; 0 without records'),
      allocatedCpuTotalBytes: z.number().describe('allocatedCpuSelfBytes plus its children’s totals, bytes'),
      topKernels: z.array(topKernel).describe("the activity names of the module's device total (forward and backward), longest first, at most 5"),
      parent: z.string().nullable().describe("the parent module's path; null for a root"),
    })).describe('one entry per module node, in tree order (depth first, a parent before its children)'),
    classes: z.array(obj({
      className: z.string().describe("the module class: the frame's name less its instance number (GPT2Block of GPT2Block_3)"),
      modules: z.number().describe("module paths of this class (its instances), count"),
      calls: z.number().describe("calls of all its modules, count"),
      hostSelfUs: z.number().describe("Σ host self time of its modules, over all calls, µs"),
      hostTotalUs: z.number().describe("Σ host total time of its outermost modules, over all calls, µs"),
      deviceSelfUs: z.number().describe("Σ forward device self time of its modules, over all calls, µs"),
      deviceTotalUs: z.number().describe("Σ forward device total time of its outermost modules, over all calls, µs"),
      backward: obj({
        deviceSelfUs: z.number().describe("Σ backward device self time of its modules, µs"),
        deviceTotalUs: z.number().describe("Σ backward device total time of its outermost modules, µs"),
      }).describe("the backward GPU work linked to its modules' forward ops (fwdbwd flows)"),
      allocatedDeviceTotalBytes: z.number().describe("Σ device bytes allocated inside its outermost modules' frames (profile_memory), bytes"),
    })).describe("the tree rolled up by class (all Linear, all GPT2Block …), the most GPU time (forward and backward device totals) first; self figures summed over the class's modules, totals over its outermost ones (a class nested in itself counted once); every figure over all calls"),
    diagnostics: readerDiagnostics,
    cutAtDepth: z.number().optional().describe("present only when nn.Module frames nest deeper than this many levels: the tree stops there, and a deeper module's ops, GPU work and allocations count in its ancestor at the last level (its host time is inside that ancestor's already)"),
  }),
);

export type ModulesDocument = z.infer<typeof modulesDocument>;
