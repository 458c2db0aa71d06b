/**
 * Values a form works out for some fields from another one (a view hint
 * `fill: { with, into }` on the source field): a Chinese name's pinyin, an age and its
 * unit from a birth date, the same-named fields of the chosen option (an exam item's
 * part, from the options the item select already loads: the resource's optionFields).
 * Targets are the source's siblings: in a row of a list, the same row's fields. The fillers are pure (pinyin-pro is loaded on first use, so it
 * stays out of the main bundle); `fillReaction` is the Formily reaction toFormily puts
 * on the source field through the SchemaField scope ($fill). What the user typed into a
 * target is never overwritten: targets follow the source only while the first of them is
 * empty or still holds what was filled last. The server fills the same where a value is
 * still missing and stays the authority.
 */
import type { Field, Form } from '@formily/core';
import { untracked } from '@formily/reactive';
import { ageFromBirthDate, HAN, pinyinName, type PinyinFn } from '../../config/person';
import { defaultLoader, dependsOf, type OptionLoader } from './totals';
import type { OptionSource, Scalar } from '../shared/schema/types';

/** What the option filler needs besides the value: the targets, the source's options, what they depend on, how to load them. */
export interface FillContext {
  into: string[];
  source?: OptionSource;
  depends?: Record<string, Scalar | undefined>;
  load?: OptionLoader;
}

/** Given the source value, one value per target field, or undefined for "nothing to fill". */
export type Filler = (value: unknown, now?: Date, ctx?: FillContext) => unknown[] | undefined | Promise<unknown[] | undefined>;

export const FILLERS: Readonly<Record<string, Filler>> = Object.freeze({
  async pinyin(value: unknown) {
    if (typeof value !== 'string' || !HAN.test(value)) return undefined;
    // Loaded on first use: the dictionary is large and only registration needs it.
    const { pinyin } = await import('pinyin-pro');
    return [pinyinName(value, pinyin as PinyinFn)];
  },
  age(value: unknown, now?: Date) {
    const a = typeof value === 'string' ? ageFromBirthDate(value, now) : undefined;
    return a ? [a.age, a.ageUnit] : undefined;
  },
  async option(value: unknown, _now?: Date, ctx?: FillContext) {
    if (empty(value) || !ctx?.source) return undefined;
    // Cached by ./options: the select has loaded the same list.
    const options = await (ctx.load ?? defaultLoader)(ctx.source, ctx.depends ?? {});
    const chosen = options.find((o) => o.value === value) as Record<string, unknown> | undefined;
    return chosen ? ctx.into.map((name) => chosen[name] ?? undefined) : undefined;
  },
});

function empty(v: unknown): boolean {
  return v === undefined || v === null || v === '';
}

/** May a target be (re)filled: empty, or still holding what was filled into it last? */
export function mayFill(current: unknown, lastFilled: unknown): boolean {
  return empty(current) || (lastFilled !== undefined && current === lastFilled);
}

/** What each form filled last, per target field. */
const filled = new WeakMap<Form, Map<string, unknown>>();

function memoryOf(form: Form): Map<string, unknown> {
  let m = filled.get(form);
  if (!m) {
    m = new Map();
    filled.set(form, m);
  }
  return m;
}

/**
 * The reaction of a source field with `fill`: runs when its value changes (the only
 * value read tracked), computes with the filler and sets the targets if the first one
 * may be filled. Nothing happens in a read-pretty form; an answer that arrives after the
 * source changed again is dropped.
 */
export function fillReaction(field: Field, filler: string, into: string[], source?: OptionSource, load?: OptionLoader): void {
  const value = field.value;
  untracked(() => {
    const fill = FILLERS[filler];
    const form = field.form;
    if (!fill || !into.length || form.readPretty || !field.editable) return;
    // Siblings of the source: a top-level field's, or the same row's in a list.
    const parent = field.path.parent().toString();
    const targets = into.map((name) => (parent ? `${parent}.${name}` : name));
    const memory = memoryOf(form);
    const may = () => mayFill(form.getValuesIn(targets[0]), memory.get(targets[0]));
    if (!may()) return;
    const depends = source ? dependsOf(source, (parent ? form.getValuesIn(parent) : form.values) as Record<string, unknown>, form) : undefined;
    void Promise.resolve(fill(value, undefined, { into, source, depends, load })).then((values) => {
      if (field.value !== value || !may()) return;
      targets.forEach((name, i) => {
        const v = values?.[i];
        // A cleared source clears only what was filled, never what the user typed.
        if (v === undefined && !mayFill(form.getValuesIn(name), memory.get(name))) return;
        form.setValuesIn(name, v);
        memory.set(name, v);
      });
    });
  });
}

/** What the generated schemas' expressions may call (the SchemaField scope of ./registry). */
export const formScope = Object.freeze({ $fill: fillReaction });
