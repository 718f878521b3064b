/**
 * The report's stylesheet, inlined into the page (no network: the file works from file://).
 * Colours are CSS variables with a dark set under `prefers-color-scheme: dark`; the timeline's
 * script reads the same variables, so the canvas follows the scheme too. Category colours
 * (Tableau 10) mean the same thing in the timeline, its legend and the step breakdown bars.
 */
export const PAGE_STYLE = String.raw`
:root {
  color-scheme: light dark;
  --bg: #ffffff; --fg: #1d2330; --muted: #5d6675; --line: #d9dde4; --panel: #f5f6f8; --zebra: #fafbfc;
  --accent: #2f6fd0; --tip-bg: #1d2330; --tip-fg: #f5f6f8; --gutter: #f0f2f5; --step-a: rgba(47, 111, 208, 0.06); --step-b: rgba(47, 111, 208, 0.0);
  --slice-text: #10141c; --select: #111111; --flow: #c2185b; --critical: #e65100;
  --c-cpu_op: #4e79a7; --c-user_annotation: #b07aa1; --c-cuda_runtime: #f28e2b; --c-cuda_driver: #e15759;
  --c-python_function: #9c755f; --c-kernel: #59a14f; --c-gpu_memcpy: #edc948; --c-gpu_memset: #76b7b2;
  --bd-kernelUs: #59a14f; --bd-memcpyUs: #edc948; --bd-memsetUs: #76b7b2; --bd-communicationUs: #ff9da7;
  --bd-runtimeUs: #f28e2b; --bd-dataLoaderUs: #9c755f; --bd-cpuExecUs: #4e79a7; --bd-otherUs: #bab0ac;
  --ok: #2e7d32; --bad: #c62828; --warn: #b26a00;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #15181e; --fg: #e4e7ec; --muted: #9aa3b2; --line: #2d333d; --panel: #1c2027; --zebra: #181b21;
    --accent: #79a8f0; --tip-bg: #e4e7ec; --tip-fg: #15181e; --gutter: #1c2027; --step-a: rgba(121, 168, 240, 0.08); --step-b: rgba(121, 168, 240, 0.0);
    --slice-text: #0b0d11; --select: #ffffff; --flow: #ff6fa8; --critical: #ffab40;
    --ok: #81c784; --bad: #ef9a9a; --warn: #ffcc80;
  }
}
* { box-sizing: border-box; }
html { background: var(--bg); color: var(--fg); }
body { margin: 0 auto; padding: 16px 24px 48px; max-width: 1600px; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
h1 { font-size: 22px; margin: 8px 0 2px; font-weight: 600; overflow-wrap: anywhere; }
h1 .brand { color: var(--accent); font-weight: 700; margin-right: 6px; }
h2 { font-size: 18px; margin: 32px 0 8px; padding-top: 8px; border-top: 1px solid var(--line); }
h3 { font-size: 15px; margin: 20px 0 6px; }
code, .name, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px; }
.path { color: var(--muted); margin: 0 0 12px; font-size: 12px; overflow-wrap: anywhere; }
.note { color: var(--muted); margin: 6px 0; max-width: 110ch; }
.error { color: var(--bad); }
nav.toc { position: sticky; top: 0; z-index: 5; background: var(--bg); border-bottom: 1px solid var(--line); padding: 6px 0; margin: 12px 0 0; display: flex; gap: 18px; flex-wrap: wrap; align-items: center; }
.warned a { color: var(--warn); font-weight: 600; }
section.lead { margin: 10px 0 0; padding: 10px 16px 12px; border: 1px solid var(--line); border-left: 4px solid var(--accent); border-radius: 4px; background: var(--panel); }
section.lead h2 { margin: 0 0 4px; padding: 0; border: none; font-size: 16px; }
section.lead h3 { margin: 10px 0 4px; font-size: 14px; }
.verdict-line { margin: 0; max-width: 150ch; }
ol.actions { margin: 0; padding-left: 22px; max-width: 150ch; }
ol.actions li { margin: 3px 0; }
ol.actions .stake { display: block; color: var(--muted); font-size: 12.5px; }
.search { position: relative; margin-left: auto; display: flex; align-items: center; gap: 4px; }
.search input { font: inherit; font-size: 13px; width: 300px; padding: 3px 8px; border: 1px solid var(--line); border-radius: 4px; background: var(--bg); color: var(--fg); }
.search input:focus { outline: 2px solid var(--accent); outline-offset: -1px; }
.search button { font: inherit; font-size: 13px; padding: 1px 8px; border: 1px solid var(--line); background: var(--panel); color: var(--fg); border-radius: 4px; cursor: pointer; }
.search-count { color: var(--muted); font-size: 12px; min-width: 70px; text-align: right; font-variant-numeric: tabular-nums; }
.search-list { position: absolute; top: 100%; right: 0; width: 560px; max-height: 60vh; overflow: auto; z-index: 20; background: var(--bg); border: 1px solid var(--line); border-radius: 4px; box-shadow: 0 4px 14px rgba(0, 0, 0, 0.18); padding: 4px 0; }
.search-list .note { margin: 2px 10px 4px; font-size: 12px; }
.search-item { display: flex; width: 100%; justify-content: space-between; gap: 12px; border: none !important; background: none !important; text-align: left; padding: 3px 10px !important; border-radius: 0 !important; }
.search-item:hover { background: var(--panel) !important; }
.search-item .mono { overflow-wrap: anywhere; }
.search-n { color: var(--muted); white-space: nowrap; font-variant-numeric: tabular-nums; }
nav.toc a { color: var(--accent); text-decoration: none; font-weight: 500; }
nav.toc a:hover { text-decoration: underline; }
dl.facts { display: grid; grid-template-columns: repeat(auto-fill, minmax(340px, 1fr)); gap: 4px 24px; margin: 0 0 10px; }
dl.facts div { display: flex; gap: 8px; padding: 3px 0; border-bottom: 1px dotted var(--line); }
dl.facts dt { color: var(--muted); min-width: 130px; flex: none; }
dl.facts dd { margin: 0; }
details.diagnostics { margin: 8px 0; }
details.diagnostics summary { cursor: pointer; color: var(--muted); }
details.diagnostics ul { margin: 6px 0; padding-left: 20px; }
.sev { display: inline-block; min-width: 56px; text-align: center; border-radius: 3px; font-size: 11px; padding: 0 4px; border: 1px solid currentColor; }
.sev-error { color: var(--bad); } .sev-warning { color: var(--warn); } .sev-info { color: var(--muted); }
.table-wrap { max-height: 560px; overflow: auto; border: 1px solid var(--line); border-radius: 4px; }
table.data { border-collapse: collapse; width: 100%; font-size: 12.5px; }
table.data caption { text-align: left; color: var(--muted); padding: 4px 6px; }
table.data th, table.data td { padding: 3px 8px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
table.data th { position: sticky; top: 0; background: var(--panel); font-weight: 600; white-space: nowrap; z-index: 1; }
table.data th.sort { cursor: pointer; user-select: none; }
table.data th.sort:hover { color: var(--accent); }
table.data th[aria-sort="ascending"]::after { content: " ▲"; font-size: 10px; }
table.data th[aria-sort="descending"]::after { content: " ▼"; font-size: 10px; }
table.data tbody tr:nth-child(even) { background: var(--zebra); }
table.data tbody tr:hover { background: var(--panel); }
table.data .num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.data td.name { min-width: 240px; max-width: 560px; overflow-wrap: anywhere; }
table.data td.decoded { max-width: 420px; color: var(--muted); }
table.data td.module { white-space: nowrap; }
.verdict { font-weight: 600; white-space: nowrap; }
.v-gpu-bound { color: var(--ok); } .v-overhead-bound { color: var(--bad); } .v-no-gpu-work, .v-unknown { color: var(--muted); }
ul.verdicts { margin: 4px 0; padding-left: 20px; }
.bar { display: flex; width: 150px; height: 12px; border-radius: 2px; overflow: hidden; background: var(--panel); margin-top: 3px; }
.bar .seg { display: block; height: 100%; }
.swatch { display: inline-block; width: 11px; height: 11px; border-radius: 2px; vertical-align: -1px; margin-right: 4px; }
.legend .key, .tl-legend .key { margin-right: 12px; white-space: nowrap; color: var(--muted); font-size: 12px; }
.bd-kernelUs { background: var(--bd-kernelUs); } .bd-memcpyUs { background: var(--bd-memcpyUs); } .bd-memsetUs { background: var(--bd-memsetUs); }
.bd-communicationUs { background: var(--bd-communicationUs); } .bd-runtimeUs { background: var(--bd-runtimeUs); } .bd-dataLoaderUs { background: var(--bd-dataLoaderUs); }
.bd-cpuExecUs { background: var(--bd-cpuExecUs); } .bd-otherUs { background: var(--bd-otherUs); }
.c-cpu_op { background: var(--c-cpu_op); } .c-user_annotation { background: var(--c-user_annotation); } .c-cuda_runtime { background: var(--c-cuda_runtime); }
.c-cuda_driver { background: var(--c-cuda_driver); } .c-python_function { background: var(--c-python_function); } .c-kernel { background: var(--c-kernel); } .c-gpu_memcpy { background: var(--c-gpu_memcpy); } .c-gpu_memset { background: var(--c-gpu_memset); }
.tl-toolbar { display: flex; align-items: center; gap: 12px; flex-wrap: wrap; margin: 6px 0; }
.tl-toolbar .hint { color: var(--muted); font-size: 12px; margin-left: auto; }
.tl-toolbar button { font: inherit; font-size: 12px; padding: 2px 10px; border: 1px solid var(--line); background: var(--panel); color: var(--fg); border-radius: 4px; cursor: pointer; }
.tl { position: relative; border: 1px solid var(--line); border-radius: 4px; outline: none; scroll-margin-top: 48px; }
.tl:focus-visible { border-color: var(--accent); }
.tl-scroll { overflow-y: auto; overflow-x: hidden; }
.tl canvas { display: block; position: sticky; top: 0; cursor: default; touch-action: none; }
.tl canvas.grabbing { cursor: grabbing; }
.tl-tip { position: absolute; pointer-events: none; background: var(--tip-bg); color: var(--tip-fg); padding: 5px 8px; border-radius: 4px; font-size: 12px; max-width: 560px; z-index: 10; box-shadow: 0 2px 8px rgba(0, 0, 0, 0.25); }
.tl-tip .tip-name { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; overflow-wrap: anywhere; }
.tl-tip .tip-meta { opacity: 0.8; margin-top: 2px; }
.tl-details { margin-top: 8px; padding: 8px 12px; background: var(--panel); border: 1px solid var(--line); border-radius: 4px; min-height: 44px; }
.tl-details h3 { margin: 0 0 6px; font-size: 13px; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-weight: 600; overflow-wrap: anywhere; }
.tl-details dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 0; font-size: 12.5px; }
.tl-details dt { color: var(--muted); }
.tl-details dd { margin: 0; overflow-wrap: anywhere; }
.tl-details button { font: inherit; font-size: 12px; margin-top: 6px; padding: 1px 8px; border: 1px solid var(--line); background: var(--bg); color: var(--fg); border-radius: 4px; cursor: pointer; }
.mem { position: relative; border: 1px solid var(--line); border-radius: 4px; margin-top: 6px; }
#mem-tip { white-space: pre; }
.mod-toggle { font: inherit; font-size: 11px; border: none; background: none; color: var(--fg); cursor: pointer; padding: 0 2px; }
.mod-leaf { display: inline-block; width: 14px; }
.icicle-wrap { border: 1px solid var(--line); border-radius: 4px; overflow: hidden; }
footer { margin-top: 40px; padding-top: 10px; border-top: 1px solid var(--line); color: var(--muted); font-size: 12px; }
`;
