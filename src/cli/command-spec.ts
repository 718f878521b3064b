/**
 * One command, declared once: its name, arguments and options with their help, the definitions
 * of the numbers it prints, its `--json` document's declaration, what it is as an MCP tool, what
 * the library exports of what it runs, and what it does. From a spec come its commander command
 * (commandOf, below: the CLI, and the MCP server's runs, parse with it), its `--help`, the MCP
 * tool (mcp-tools.ts), `schema/COMMAND.schema.json` and `src/index.ts`'s exports of it
 * (scripts/generate.mjs), and docs/agents.md's tool list.
 *
 * A command that reads and reports (most of them) returns a Reading from `run`: its document and
 * its terminal view, and the diagnostics --strict counts; printing, colours, diagnostics on
 * stderr and the exit status are done here, the same way for all. A command that does something
 * else (writes a file, serves one) prints for itself and returns its exit status.
 */
import { Command, Help, Option } from 'commander';
import type { z } from 'zod';
import type { Diagnostic } from '../core/diagnostics.js';
import type { TraceModel } from '../model/trace-model.js';
import type { DocumentBody } from '../report/documents/kit.js';
import { renderDiagnostics } from '../report/diagnostics-view.js';
import { action, colorsFor, EXIT_CHECK_FAILED, EXIT_OK, printJson, printText, SHARED_OPTIONS_HEADING, withCommonOptions, writeErr, type Colors, type CommonOptions } from './common.js';

/** A positional argument, by name (the key); the keys' order is the arguments' order. */
export interface ArgumentSpec {
  readonly description: string;
  /** Optional (`[name]`). */
  readonly optional?: boolean;
  /** Takes the rest of the arguments (`<name...>`). */
  readonly variadic?: boolean;
  /** Names a file or folder: an MCP call's value is resolved inside the server's roots. */
  readonly path?: boolean;
}

/** An option, by the name commander gives its value (`--group-by` → `groupBy`, the key). */
export interface OptionSpec {
  /** Commander's flags: `--sort <key>`, `-o, --output <file>`, `--kernels [n]`, `--no-memory-events`. */
  readonly flags: string;
  readonly description: string;
  readonly choices?: readonly string[];
  /** The value when the option is not given (shown in --help as commander shows it). */
  readonly default?: string;
  /** How --help names the default when it is not the value itself. */
  readonly defaultDescription?: string;
  /** May be given several times: the values collected in order (default []). */
  readonly repeat?: boolean;
  /** Must be given. */
  readonly required?: boolean;
  /** Its value names a file or folder: an MCP call's value is resolved inside the server's roots. */
  readonly path?: boolean;
  /** Not an input of the MCP tool: writes a file, or means nothing in a document (tools are read-only). */
  readonly tool?: false;
}

/** What the value of an option declared so is. */
type OptionValue<O extends OptionSpec> = O['repeat'] extends true
  ? string[]
  : O['flags'] extends `--no-${string}`
    ? boolean
    : O['flags'] extends `${string}...>${string}`
      ? string[] | undefined
    : O['flags'] extends `${string}<${string}>${string}`
      ? (O['choices'] extends readonly (infer C)[] ? C : string) | (O extends { default: string } ? never : undefined)
      : O['flags'] extends `${string}[${string}]${string}`
        ? string | true | undefined
        : true | undefined;

type ArgumentValue<A extends ArgumentSpec> = A['variadic'] extends true ? string[] : A['optional'] extends true ? string | undefined : string;

export type ArgumentValues<As extends Record<string, ArgumentSpec>> = { -readonly [K in keyof As]: ArgumentValue<As[K]> };
export type OptionValues<Os extends Record<string, OptionSpec>> = { -readonly [K in keyof Os]: OptionValue<Os[K]> } & CommonOptions;

/** What a command that reads and reports hands back; commandOf prints it. */
export interface Reading<J> {
  /** Its `--json` document, less `schemaVersion` (printJson writes it first). */
  json(): J;
  /** Its terminal view. */
  text(c: Colors): string;
  /**
   * The diagnostics of what it read, a list per trace (or the list itself): printed on stderr
   * after the terminal view (informational ones with --verbose), and what --strict fails on.
   */
  readonly diagnostics?: readonly (TraceModel | readonly Diagnostic[])[];
  /** Lines for stderr after the terminal view, before the diagnostics (report: a section it could not compute). */
  readonly notes?: readonly string[];
  /** Lines for stderr after the diagnostics (what an execution trace given with --et repaired: it is not the trace). */
  readonly afterDiagnostics?: readonly string[];
  /** A check failed: exit status 1 whatever --strict says. */
  readonly failed?: boolean;
  /** What --strict fails on, where it is not a warning among the diagnostics (doctor: its findings). */
  readonly strictFails?: boolean;
}

/** The MCP tool a command is. */
export interface ToolSpec {
  /**
   * The lists of rows an answer may be paged through (JSON pointers into the document, `*` for
   * any one key or index, `**` for any path): every other field — totals, caveats,
   * diagnostics, findings — is never cut.
   */
  readonly rows: readonly string[];
  /** What the tool answers: its `--json` document (the default), or its Markdown (explain) paged by section. */
  readonly answer?: 'document' | 'markdown';
}

/** A name the library (src/index.ts) exports from what the command runs: `from` is relative to src/, without `.ts`. */
export interface LibraryExport {
  readonly from: string;
  readonly names?: readonly string[];
  readonly types?: readonly string[];
}

export interface CommandSpec<As extends Record<string, ArgumentSpec> = Record<string, ArgumentSpec>, Os extends Record<string, OptionSpec> = Record<string, OptionSpec>, D = unknown> {
  readonly name: string;
  /** One line, for the list of commands in `kinetoscope --help`. */
  readonly summary: string;
  /** What it does: the opening paragraph of its own --help. */
  readonly description: string;
  readonly arguments: As;
  readonly options: Os;
  /** The definitions of the numbers it prints, shown in --help after its options. */
  readonly definitions?: string | (() => string);
  /** Reads a trace (the default): takes the output flags, the read limits and --redact. */
  readonly readsTraces?: boolean;
  /** Its `--json` document's declaration (report/documents/COMMAND.ts); loaded only to write the schemas (zod costs tens of ms). */
  readonly document?: () => Promise<z.ZodType<D>>;
  /** Files it writes for itself to read back, with their declarations (ranks --partial's): schema/NAME.schema.json. */
  readonly files?: Readonly<Record<string, () => Promise<z.ZodType>>>;
  /** What it is as an MCP tool: every command with a document is one unless `false`. */
  readonly tool?: ToolSpec | false;
  /** What src/index.ts exports of what it runs. */
  readonly library?: readonly LibraryExport[];
  /** What it does: a Reading to print, or (having printed) its exit status. */
  run(args: ArgumentValues<As>, opts: OptionValues<Os>): Promise<Reading<DocumentOf<NoInfer<D>>> | number | void>;
}

/** A document as a command hands it to printJson: without `schemaVersion` (written first there). */
export type DocumentOf<D> = unknown extends D ? Record<string, unknown> : DocumentBody<D>;

/** A command's spec, its types inferred (the options' value types from their flags and choices). */
export function defineCommand<const As extends Record<string, ArgumentSpec>, const Os extends Record<string, OptionSpec>, D = unknown>(spec: CommandSpec<As, Os, D>): CommandSpec<As, Os, D> {
  return spec;
}

// eslint-free `any`: a registry holds specs of every argument and option shape
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyCommandSpec = CommandSpec<any, any, any>;

/** The commander command of a spec: its arguments, options and help, and its run wrapped (common.ts's action). */
export function commandOf(spec: AnyCommandSpec): Command {
  const cmd = new Command(spec.name).description(spec.description).summary(spec.summary);
  const argNames = Object.keys(spec.arguments);
  for (const [name, a] of Object.entries<ArgumentSpec>(spec.arguments)) {
    const usage = `${name}${a.variadic ? '...' : ''}`;
    cmd.argument(a.optional ? `[${usage}]` : `<${usage}>`, a.description);
  }
  for (const [key, o] of Object.entries<OptionSpec>(spec.options)) {
    const option = new Option(o.flags, o.description);
    if (option.attributeName() !== key) throw new Error(`${spec.name}: option ${o.flags} is declared as "${key}", commander names it "${option.attributeName()}"`);
    if (o.choices) option.choices(o.choices);
    // (a repeated option's [] when not given is filled in below: --help shows no default for it)
    if (o.repeat) option.argParser((v: string, acc: string[] | undefined) => [...(acc ?? []), v]);
    else if (o.default !== undefined) option.default(o.default, o.defaultDescription);
    if (o.required) option.makeOptionMandatory();
    cmd.addOption(option);
  }
  if (spec.readsTraces !== false) withCommonOptions(cmd);
  layOutHelp(cmd, spec.definitions);
  return cmd.action(
    action(async (...given: unknown[]) => {
      const args = Object.fromEntries(argNames.map((n, i) => [n, given[i] as string | string[] | undefined]));
      const opts = given[argNames.length] as Record<string, unknown> & CommonOptions;
      for (const [key, o] of Object.entries<OptionSpec>(spec.options)) if (o.repeat) opts[key] ??= [];
      const r = await spec.run(args, opts);
      return r === undefined || typeof r === 'number' ? r : report(r, opts);
    }),
  );
}

/** Prints a Reading: its document or its view, then notes and diagnostics; its exit status. */
function report(r: Reading<Record<string, unknown>>, opts: CommonOptions): number {
  const lists = (r.diagnostics ?? []).map((d) => ('diagnostics' in d ? d.diagnostics : d));
  if (opts.json) printJson(r.json());
  else {
    printText(r.text(colorsFor(opts)));
    for (const note of r.notes ?? []) writeErr(`${note}\n`);
    for (const list of lists) {
      const text = renderDiagnostics(list, { verbose: opts.verbose });
      if (text) writeErr(`${text}\n`);
    }
    for (const line of r.afterDiagnostics ?? []) writeErr(`${line}\n`);
  }
  if (r.failed) return EXIT_CHECK_FAILED;
  const strictFails = r.strictFails ?? lists.some((l) => l.some((d) => d.severity !== 'info'));
  return opts.strict && strictFails ? EXIT_CHECK_FAILED : EXIT_OK;
}

/**
 * A command's --help in reading order: usage, what it does, its arguments and options, the
 * definitions of its numbers; then, once, under their heading, what every command that reads a
 * trace shares (the read limits, --redact).
 */
function layOutHelp(cmd: Command, definitions: CommandSpec['definitions']): void {
  cmd.configureHelp({
    formatHelp(c, helper) {
      const all = Help.prototype.visibleOptions.call(helper, c);
      const shared = all.filter((o) => o.helpGroupHeading === SHARED_OPTIONS_HEADING);
      helper.visibleOptions = () => all.filter((o) => o.helpGroupHeading !== SHARED_OPTIONS_HEADING);
      const own = Help.prototype.formatHelp.call(helper, c, helper).trimEnd();
      const text = typeof definitions === 'function' ? definitions() : definitions;
      const parts = [own, ...(text ? [text.replace(/^\n+/, '').trimEnd()] : [])];
      if (shared.length) {
        const width = Math.max(...shared.map((o) => helper.displayWidth(helper.optionTerm(o))));
        const items = shared.map((o) => helper.formatItem(helper.optionTerm(o), width, helper.optionDescription(o), helper));
        parts.push([SHARED_OPTIONS_HEADING, ...items].join('\n'));
      }
      return `${parts.join('\n\n')}\n`;
    },
  });
}

/** The argument most commands take. */
export const TRACE_ARGUMENT = { description: 'trace file (.json or .json.gz), or - for standard input', path: true } as const satisfies ArgumentSpec;

/** --force of a command that writes a file (crop, report, check --write-expect): safe-write.ts's rule for replacing an output. */
export const FORCE_OPTION = { flags: '--force', description: 'replace an existing output that kinetoscope did not write, or a symbolic link (never the input itself)' } as const satisfies OptionSpec;

/**
 * A terminal view made of several parts, as one text: each part ends its line, and each later
 * part that has something to say comes after a blank line.
 */
export function stackedText(first: string, ...later: readonly (string | undefined)[]): string {
  const line = (s: string) => (s.endsWith('\n') ? s : `${s}\n`);
  return [line(first), ...later.filter((s): s is string => !!s).map((s) => line(`\n${s}`))].join('');
}
