/**
 * An integrity walk over a built model: invariants every analysis relies on. Tests run it
 * after every fixture parse; it returns the violations instead of throwing so a test can
 * print them all.
 */
import { HostKind, type TraceModel } from './trace-model.js';

export function checkModelIntegrity(m: TraceModel): string[] {
  const bad: string[] = [];
  const { host, gpu, strings } = m;
  const say = (s: string) => {
    if (bad.length < 50) bad.push(s);
  };
  const columns = [host.kind, host.name, host.thread, host.startNs, host.durNs, host.externalId, host.correlation, host.parent, host.depth];
  for (const c of columns) if (c.length !== host.length) say(`host column length ${c.length} ≠ ${host.length}`);
  for (let i = 0; i < host.length; i++) {
    if (host.name[i]! < 0 || host.name[i]! >= strings.size) say(`host ${i}: bad name id`);
    if (!(host.durNs[i]! >= 0)) say(`host ${i}: negative duration`);
    if (!Number.isFinite(host.startNs[i])) say(`host ${i}: non-finite start`);
    const p = host.parent[i]!;
    if (p >= 0) {
      if (host.thread[p] !== host.thread[i]) say(`host ${i}: parent on another thread`);
      if (host.startNs[p]! > host.startNs[i]! || host.startNs[p]! + host.durNs[p]! < host.startNs[i]! + host.durNs[i]!)
        say(`host ${i}: not inside its parent ${p}`);
      if (host.depth[i] !== host.depth[p]! + 1) say(`host ${i}: depth ${host.depth[i]} under parent depth ${host.depth[p]}`);
    } else if (host.depth[i] !== 0) say(`host ${i}: root with depth ${host.depth[i]}`);
  }
  for (let c = 0; c < host.length; c++) {
    let count = 0;
    for (let k = host.firstChild[c]!; k !== -1; k = host.nextSibling[k]!) {
      if (host.parent[k] !== c) say(`host ${k}: in child list of ${c} but parent is ${host.parent[k]}`);
      if (++count > host.length) {
        say(`host ${c}: child list cycles`);
        break;
      }
    }
  }
  for (let g = 0; g < gpu.length; g++) {
    if (!(gpu.durNs[g]! >= 0)) say(`gpu ${g}: negative duration`);
    const l = gpu.launcher[g]!;
    if (l >= 0 && host.kind[l] !== HostKind.Runtime && host.kind[l] !== HostKind.Driver) say(`gpu ${g}: launcher is not an API call`);
    const o = gpu.owner[g]!;
    if (o >= 0 && host.kind[o] !== HostKind.Op) say(`gpu ${g}: owner is not a cpu_op`);
  }
  // the owned-work lists hold each owned activity once, under its owner, in table order
  let listed = 0;
  for (let o = 0; o < host.length; o++) {
    for (let g = host.firstOwned[o]!, prev = -1; g !== -1; prev = g, g = gpu.nextOwned[g]!) {
      if (gpu.owner[g] !== o) say(`gpu ${g}: listed under op ${o} but owned by ${gpu.owner[g]}`);
      if (g <= prev) say(`op ${o}: owned work out of table order`);
      if (++listed > gpu.length) return [...bad, 'owned-work lists loop'];
    }
  }
  let owned = 0;
  for (let g = 0; g < gpu.length; g++) if (gpu.owner[g]! >= 0) owned++;
  if (listed !== owned) say(`owned-work lists hold ${listed} activities, ${owned} are owned`);
  for (let k = 1; k < m.steps.length; k++) if (m.steps[k]!.startNs < m.steps[k - 1]!.startNs) say('steps not in time order');
  return bad;
}
