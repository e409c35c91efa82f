/**
 * `deltalite <verb> --help`: the usage line, what the verb does, every option with its value placeholder,
 * default and unit (from the verb's option definitions, the same records the parser reads), then the verb's
 * notes (filter ops, row identity...).
 */
import type { OptionDef, OptionDefs } from "./options.js";

/** What a verb's help is made of (a `Verb` has all of it). */
export interface VerbHelpSource {
  name: string;
  args: string;
  summary: string;
  options: OptionDefs;
  notes?: readonly string[] | undefined;
}

function optionLine(name: string, def: OptionDef): [string, string] {
  const short = def.short ? `-${def.short}, ` : "";
  const value = def.type === "string" ? ` ${def.value ?? "VALUE"}` : "";
  const repeat = def.multiple ? " (repeatable)" : "";
  const fallback = def.default !== undefined ? ` [default: ${def.default}]` : "";
  return [`  ${short}--${name}${value}`, `${def.description}${repeat}${fallback}`];
}

function optionBlock(defs: OptionDefs): string[] {
  const rows = Object.entries(defs).map(([name, def]) => optionLine(name, def));
  const width = Math.min(34, Math.max(...rows.map(([left]) => left.length)) + 2);
  return rows.map(([left, right]) =>
    left.length + 2 > width ? `${left}\n${" ".repeat(width)}${right}` : `${left.padEnd(width)}${right}`,
  );
}

export function verbHelp(verb: VerbHelpSource, common: OptionDefs): string {
  const lines = [`usage: deltalite ${verb.name} ${verb.args} [options]`, "", verb.summary, ""];
  if (Object.keys(verb.options).length > 0) lines.push("options:", ...optionBlock(verb.options), "");
  lines.push("common options:", ...optionBlock(common), "");
  if (verb.notes && verb.notes.length > 0) lines.push(...verb.notes, "");
  return lines.join("\n");
}
