/**
 * Every subcommand, by name, each loaded only when asked for: `kinetoscope summary small.json`
 * should not pay for compiling the report page or the diff. The CLI (main.ts) and the MCP
 * server (mcp-server.ts) both build their commands from this one list.
 */
import type { Command } from 'commander';

export type CommandFactory = () => Command;

export const COMMANDS: Record<string, () => Promise<CommandFactory>> = {
  summary: async () => (await import('./summary.js')).summaryCommand,
  tree: async () => (await import('./tree.js')).treeCommand,
  kernels: async () => (await import('./kernels.js')).kernelsCommand,
  diff: async () => (await import('./diff.js')).diffCommand,
  check: async () => (await import('./check.js')).checkCommand,
  steps: async () => (await import('./steps.js')).stepsCommand,
  launches: async () => (await import('./launches.js')).launchesCommand,
  fusion: async () => (await import('./fusion.js')).fusionCommand,
  compile: async () => (await import('./compile.js')).compileCommand,
  gemm: async () => (await import('./gemm.js')).gemmCommand,
  roofline: async () => (await import('./roofline.js')).rooflineCommand,
  ops: async () => (await import('./ops.js')).opsCommand,
  breakdown: async () => (await import('./breakdown.js')).breakdownCommand,
  doctor: async () => (await import('./doctor.js')).doctorCommand,
  explain: async () => (await import('./explain.js')).explainCommand,
  report: async () => (await import('./report.js')).reportCommand,
  perfetto: async () => (await import('./perfetto.js')).perfettoCommand,
  crop: async () => (await import('./crop.js')).cropCommand,
  'critical-path': async () => (await import('./critical-path.js')).criticalPathCommand,
  ranks: async () => (await import('./ranks.js')).ranksCommand,
  export: async () => (await import('./export.js')).exportCommand,
  sql: async () => (await import('./sql.js')).sqlCommand,
  schema: async () => (await import('./schema.js')).schemaCommand,
  mcp: async () => (await import('./mcp.js')).mcpCommand,
};

/**
 * The commands whose `--json` document is their whole answer, read-only: the ones with a
 * schema in schema/ and a tool in the MCP server. (crop and report write files, perfetto
 * serves one, schema and mcp are about the others.)
 */
export const JSON_COMMANDS = [
  'summary', 'tree', 'kernels', 'steps', 'launches', 'breakdown', 'doctor', 'gemm', 'ops',
  'fusion', 'compile', 'explain', 'diff', 'check',
] as const;
