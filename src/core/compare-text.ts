/**
 * Text in code-unit order — the tie-break of every sorted table and list (kernels, ops, APIs
 * of equal time): the same on every machine, where `localeCompare` follows the process's
 * locale, so that one trace gives one output wherever it is read. It also costs nothing to
 * start: the first `localeCompare` of a process builds ICU's collator (~5 ms on this project's
 * machine, a tenth of `kinetoscope kernels`' analysis).
 */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
