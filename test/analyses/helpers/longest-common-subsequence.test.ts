/**
 * The alignment under the kernel matcher: index pairs of a longest common subsequence, worked out
 * by hand on sequences of kernel names.
 */
import { describe, expect, it } from 'vitest';
import { longestCommonSubsequence } from '../../../src/analyses/helpers/longest-common-subsequence.js';

describe('longestCommonSubsequence', () => {
  it('aligns kernel sequences', () => {
    expect(longestCommonSubsequence(['g', 'g', 'gelu', 'mul', 'g'], ['g', 'g', 'fused', 'g'])).toEqual([
      [0, 0],
      [1, 1],
      [4, 3],
    ]);
    expect(longestCommonSubsequence(['a', 'b', 'c'], ['c', 'b', 'a'])).toHaveLength(1);
    expect(longestCommonSubsequence([], ['a'])).toEqual([]);
    expect(longestCommonSubsequence(['x', 'a', 'y', 'b'], ['a', 'z', 'b'])).toEqual([
      [1, 0],
      [3, 2],
    ]);
  });
});
