/**
 * Totals a form keeps up to date while the user chooses (view hint `sum`): the
 * registration form's price is the sum of the chosen exam items' catalogue prices,
 * read from the options the item select already loads (the exam item resource sends
 * its price as an optionFields entry), so no call is added. `sumReaction` is the
 * Formily reaction toFormily puts on the total's field through the SchemaField scope
 * ($sum). The server computes the stored total from its catalogue and stays the
 * authority; the form only shows what the save will store.
 */
import type { Field, Form } from '@formily/core';
import { untracked } from '@formily/reactive';
import { loadOptions } from './options';
import type { Option, OptionSource, Scalar, SumSpec } from '../shared/schema/types';

/** A sum's spec as toFormily hands it to $sum: the hint and the option source of "<of>.<option>". */
export type SumReactionSpec = SumSpec & { source: OptionSource };

export type OptionLoader = (source: OptionSource, depends: Record<string, Scalar | undefined>) => Promise<Option[]>;

/** Options as the form's selects load them (cached by ./options). */
export const defaultLoader: OptionLoader = (source, depends) => loadOptions(source, (key) => key, depends);

function blank(v: unknown): boolean {
  return v === undefined || v === null || v === '';
}

/**
 * The total of the chosen options' `value` (in fen while adding, so 0.1 + 0.2 is
 * 0.3), or undefined while no row has a choice. `options[i]` are row i's options; a
 * choice not among them (not loaded, or gone from the catalogue) adds nothing.
 */
export function totalOf(chosen: unknown[], options: Option[][], value: string): number | undefined {
  let fen = 0;
  let any = false;
  chosen.forEach((c, i) => {
    if (blank(c)) return;
    any = true;
    const v = Number(options[i]?.find((o) => o.value === c)?.[value]);
    if (Number.isFinite(v)) fen += Math.round(v * 100);
  });
  return any ? fen / 100 : undefined;
}

/** The values a row's option source depends on: a row field by name, a top-level form field with a leading "/". */
export function dependsOf(source: OptionSource, row: Record<string, unknown>, form: Form): Record<string, Scalar | undefined> {
  if (!('resource' in source)) return {};
  return Object.fromEntries(
    Object.entries(source.dependsOn ?? {}).map(([param, from]) => [param, (from.startsWith('/') ? form.getValuesIn(from.slice(1)) : row?.[from]) as Scalar | undefined]),
  );
}

/** The last computation started per field: an answer for an older choice is dropped. */
const latest = new WeakMap<Field, object>();

/**
 * The reaction of a field with `sum`: reads (tracked) each row's choice and what its
 * options depend on, so it runs again whenever one changes; then loads the options
 * (cached by ./options) and sets the total.
 */
export function sumReaction(field: Field, spec: SumReactionSpec, load: OptionLoader = defaultLoader): void {
  const form = field.form;
  const rows = (form.getValuesIn(spec.of) as Array<Record<string, unknown>> | undefined) ?? [];
  const chosen = rows.map((r) => r?.[spec.option]);
  const depends = rows.map((r) => dependsOf(spec.source, r, form));
  untracked(() => {
    const token = {};
    latest.set(field, token);
    void Promise.all(chosen.map((c, i) => (blank(c) ? Promise.resolve([]) : load(spec.source, depends[i]).catch(() => [])))).then((lists) => {
      if (latest.get(field) !== token) return;
      field.setValue(totalOf(chosen, lists, spec.value));
    });
  });
}

/** What the generated schemas' expressions may call for totals (merged into the SchemaField scope by ./registry). */
export const totalScope = Object.freeze({ $sum: sumReaction });
