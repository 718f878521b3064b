/**
 * Every subcommand, in the order `kinetoscope --help` lists them (a reader's workflow, by group),
 * each loaded only when asked for: `kinetoscope summary small.json` should not pay for compiling
 * the report page or the diff. Each module exports its `spec` (command-spec.ts); the CLI
 * (program.ts), the MCP server (mcp-tools.ts) and scripts/generate.mjs all start from this list.
 */
import type { AnyCommandSpec } from '../command-spec.js';

type SpecModule = () => Promise<{ spec: AnyCommandSpec }>;

export const COMMAND_GROUPS: readonly { readonly heading: string; readonly commands: Readonly<Record<string, SpecModule>> }[] = [
  {
    heading: 'Read one trace:',
    commands: {
      explain: () => import('./explain.js'),
      steps: () => import('./steps.js'),
      summary: () => import('./summary.js'),
      kernels: () => import('./kernels.js'),
      launches: () => import('./launches.js'),
      'critical-path': () => import('./critical-path.js'),
      gemm: () => import('./gemm.js'),
      roofline: () => import('./roofline.js'),
      fusion: () => import('./fusion.js'),
      compile: () => import('./compile.js'),
      ops: () => import('./ops.js'),
      tree: () => import('./tree.js'),
      memory: () => import('./memory.js'),
      modules: () => import('./modules.js'),
      breakdown: () => import('./breakdown.js'),
      doctor: () => import('./doctor.js'),
    },
  },
  {
    heading: 'Compare:',
    commands: {
      diff: () => import('./diff.js'),
      check: () => import('./check.js'),
    },
  },
  {
    heading: 'Many ranks:',
    commands: {
      ranks: () => import('./ranks.js'),
      export: () => import('./export.js'),
      sql: () => import('./sql.js'),
    },
  },
  {
    heading: 'Files and agents:',
    commands: {
      report: () => import('./report.js'),
      perfetto: () => import('./perfetto.js'),
      crop: () => import('./crop.js'),
      schema: () => import('./schema.js'),
      mcp: () => import('./mcp.js'),
    },
  },
];

/** Every command's module, by name, in the listing's order. */
export const COMMANDS: Readonly<Record<string, SpecModule>> = Object.assign({}, ...COMMAND_GROUPS.map((g) => g.commands));

/** The heading a command is listed under. */
export function commandGroup(name: string): string | undefined {
  return COMMAND_GROUPS.find((g) => Object.hasOwn(g.commands, name))?.heading;
}

export async function loadSpec(name: string): Promise<AnyCommandSpec> {
  return (await COMMANDS[name]!()).spec;
}

/** Every command's spec, in the listing's order. */
export async function loadSpecs(): Promise<AnyCommandSpec[]> {
  return Promise.all(Object.keys(COMMANDS).map(loadSpec));
}

/**
 * The commands whose `--json` document is declared (report/documents/), each with a schema in
 * schema/: read-only, and (unless their spec says otherwise) a tool of the MCP server. crop,
 * report and export print what they wrote; perfetto serves a file; schema and mcp are about the others.
 */
export async function jsonCommands(): Promise<AnyCommandSpec[]> {
  return (await loadSpecs()).filter((s) => s.document !== undefined);
}
