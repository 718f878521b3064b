/** The JSON document of `ranks --partial OUT TRACE`: every field, its type and its meaning. */
import { z } from 'zod';
import { jsonDocument, obj } from './kit.js';


export const ranksPartialDocument = jsonDocument(
  'kinetoscope ranks --partial',
  "kinetoscope ranks --partial OUT TRACE: one rank's summary, the map half of ranks (read back by kinetoscope ranks PARTIALS…, the reduce, which prints the document ranks TRACES… prints). Written and read by one kinetoscope version.",
  obj({
    kinetoscopePartial: z.literal('ranks').describe('marks the file as a partial (the first key: a partial is recognised by its first bytes); its value is the command that reads it'),
    partialVersion: z.literal(1).describe('version of this layout: raised when a field changes meaning or goes away'),
    kinetoscopeVersion: z.string().describe('the kinetoscope version that wrote it: a partial is read only by the same version'),
    trace: z.string().describe("the trace summarised, the path as ranks --partial was given it (the rank's file in the ranks document; --rank-regex reads it)"),
    summary: obj({
      infoRank: z.int().nullable().describe('distributedInfo.rank; null when the trace does not say'),
      worldSize: z.int().nullable().describe('distributedInfo.world_size; null when the trace does not say'),
      ignoredInfo: z.string().optional().describe("what of the trace's distributedInfo was read as no rank or world size (not an integer in range), in words; absent when nothing was"),
      backend: z.string().nullable().describe('distributedInfo.backend; null when the trace does not say'),
      originNs: z.string().regex(/^-?[0-9]+$/).describe("the trace start on the profiler's clock, ns, as a decimal integer (beyond 2^53)"),
      steps: z.array(obj({
        name: z.string().describe("the step's name as the trace writes it (ProfilerStep#N)"),
        number: z.int().describe('the step number N of ProfilerStep#N'),
        startNs: z.number().describe("its start, ns from the rank's trace start"),
        durNs: z.number().describe('its duration, ns'),
      })).describe("the rank's ProfilerStep#N, by start"),
      calls: z.array(obj({
        name: z.string().describe('the collective, normalised: allreduce, allgather, reducescatter, broadcast, reduce, alltoall, sendrecv, send, recv, barrier, gather, scatter, …'),
        pg: z.string().describe("the process group's name as the trace writes it; '' when the trace does not say"),
        seq: z.number().nullable().describe("the process group's sequence number (the Seq arg); null when absent"),
        step: z.int().describe('the profiler step number it was issued in; -1 outside any step'),
        elements: z.number().nullable().describe('message elements (the larger of the in and out counts); null when unknown'),
        bytes: z.number().nullable().describe('message bytes (elements x element size); null when unknown'),
        dtype: z.string().describe("the element type as record_param_comms writes it; '' when unknown"),
        groupSize: z.number().nullable().describe('the Group size arg; null when absent'),
        startNs: z.number().describe("its start (kernel start on the GPU, gloo's work start on the host), ns from the rank's trace start"),
        endNs: z.number().describe("its end, ns from the rank's trace start"),
        source: z.enum(['gpu', 'host']).describe("where it ran: 'gpu' (a communication kernel) or 'host' (gloo's worker thread)"),
      })).describe("the rank's collective calls (ranks --help: Collective calls)"),
      commSource: z.enum(['gpu-kernels', 'host-gloo', 'gpu-kernels+host-gloo', 'none']).describe('where its communication was found'),
      commNs: z.number().describe("union of its communication time (the calls' spans), ns"),
      computeNs: z.number().describe("union of its computation kernels' time, ns"),
      overlapNs: z.number().describe('time communication and computation kernels ran together, ns'),
      stepCommNs: z.number().describe("communication inside the rank's profiler steps (the union of its calls' spans, clipped to the steps), ns"),
      stepExposedNs: z.number().describe('of stepCommNs, the time no computation kernel ran alongside (exposed communication inside the steps), ns'),
      issuedCollectives: z.int().describe('c10d::* ops issued on the host (whether or not work ran for them), count'),
      events: z.int().describe('trace events read, count'),
      bytesRead: z.int().describe('bytes of trace JSON read (after gunzip)'),
      warnings: z.int().describe("the trace's own diagnostics of severity warning or error, count"),
    }).describe('what ranks keeps of the trace (analyses/ranks/ranks.ts RankSummary)'),
  }),
);

export type RanksPartialDocument = z.infer<typeof ranksPartialDocument>;
