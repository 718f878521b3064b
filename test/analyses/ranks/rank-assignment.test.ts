/** Rank discovery and collective naming: the patterns the CLI relies on, case by case. */
import { describe, expect, it } from 'vitest';
import { assignRanks, rankFromName } from '../../../src/analyses/ranks/rank-assignment.js';
import { busBwFactor, collectiveFromKernelName, normaliseCollectiveName } from '../../../src/analyses/ranks/collectives.js';

describe('rankFromName', () => {
  it.each([
    ['rank-3.Jul_15_10_52_41.1074.pt.trace.json.gz', 3],
    ['sampled_rank-1.json.gz', 1],
    ['rank0.json.gz', 0],
    ['inference_rank_12.json.gz', 12],
    ['primus-megatron-exp-rank[7].123.pt.trace.json.gz', 7],
    ['host_1234.1717.pt.trace.json', undefined], // tensorboard_trace_handler's default name: no rank
    ['rank_non_gpu.json.gz', undefined],
    ['ranks_w8_skew2.json', undefined],
  ])('%s → %s', (name, rank) => expect(rankFromName(name)).toBe(rank));
  it('a --rank-regex takes its first group', () => expect(rankFromName('/jobs/node03/gpu5.json', /node(\d+)/)).toBe(3));
});

describe('assignRanks', () => {
  it('the regex, then distributedInfo, then the name; one nameless trace is rank 0', () => {
    const a = assignRanks([{ file: 'a/rank-4.json', name: 'rank-4.json', infoRank: 9 }, { file: 'b/rank-5.json', name: 'rank-5.json', infoRank: undefined }]);
    expect(a).toEqual({ ok: true, ranks: [{ file: 'a/rank-4.json', rank: 9, origin: 'distributedInfo' }, { file: 'b/rank-5.json', rank: 5, origin: 'file-name' }] });
    expect(assignRanks([{ file: 't.json', name: 't.json', infoRank: undefined }])).toEqual({ ok: true, ranks: [{ file: 't.json', rank: 0, origin: 'single-trace' }] });
    const r = assignRanks([{ file: 'x/n1.json', name: 'n1.json', infoRank: 0 }], /n(\d+)/);
    expect(r.ok && r.ranks[0]).toEqual({ file: 'x/n1.json', rank: 1, origin: 'rank-regex' });
  });
  it('two traces of one rank, or a nameless trace among many, are errors', () => {
    expect(assignRanks([{ file: 'a', name: 'a', infoRank: 0 }, { file: 'b', name: 'b', infoRank: 0 }])).toMatchObject({ ok: false, code: 'DUPLICATE_RANK' });
    expect(assignRanks([{ file: 'a', name: 'a', infoRank: 0 }, { file: 'b', name: 'b', infoRank: undefined }])).toMatchObject({ ok: false, code: 'UNKNOWN_RANK' });
  });
});

describe('collective names', () => {
  it.each([
    ['allreduce', 'allreduce'], ['c10d::allreduce_', 'allreduce'], ['gloo:all_reduce', 'allreduce'], ['nccl:_all_gather_base', 'allgather'],
    ['c10d::_reduce_scatter_base_', 'reducescatter'], ['c10d::alltoall_base_', 'alltoall'], ['nccl:all_to_all', 'alltoall'], ['gloo:broadcast', 'broadcast'],
    ['c10d::barrier', 'barrier'], ['reduce', 'reduce'], ['SendRecv', 'sendrecv'], ['c10d::send', 'send'], ['c10d::recv_', 'recv'],
  ])('%s → %s', (raw, name) => expect(normaliseCollectiveName(raw)).toBe(name));
  it('from NCCL kernel names, old and new', () => {
    expect(collectiveFromKernelName('ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)')).toBe('allreduce');
    expect(collectiveFromKernelName('ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)')).toBe('allgather');
    expect(collectiveFromKernelName('ncclDevKernel_ReduceScatter_Sum_f32_RING_LL(…)')).toBe('reducescatter');
    expect(collectiveFromKernelName('ncclDevKernel_Generic_4(…)')).toBe(''); // RCCL's: the name does not say
  });
  it("bus bandwidth factors are NCCL's", () => {
    expect(busBwFactor('allreduce', 8)).toBe(1.75);
    expect(busBwFactor('allgather', 8)).toBe(0.875);
    expect(busBwFactor('reducescatter', 4)).toBe(0.75);
    expect(busBwFactor('alltoall', 2)).toBe(0.5);
    expect(busBwFactor('broadcast', 8)).toBe(1);
    expect(busBwFactor('barrier', 8)).toBeNaN();
  });
});
