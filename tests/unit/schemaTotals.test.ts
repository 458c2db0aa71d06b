/**
 * Totals a form keeps up to date (src/schema/totals.ts, view hint `sum`), as a pure
 * function and on a real Formily form with a stub option loader (no React, no
 * server). Scenarios:
 * - totalOf: the chosen options' values added in fen (0.1 + 0.2 = 0.3); nothing chosen
 *   gives no total; a choice not among its row's options adds nothing
 * - sumReaction on a form: choosing an item shows its price, a second row adds its
 *   own, removing a row takes it off; the options are asked for with the form's
 *   hospital (dependsOn "/hospitalId"); an answer for an older choice is dropped
 * - the exam view's price declares its sum over the items' catalogue prices, and the
 *   scope offers $sum
 */
import { createForm, type Field } from '@formily/core';
import { sumReaction, totalOf, totalScope, type OptionLoader, type SumReactionSpec } from '@/schema/totals';
import type { Option, OptionSource, Scalar } from '@/shared/schema/types';
import { views } from '@/shared/schema/views';

/** Every promise chain started so far has run (the stub loader answers at once). */
const flush = () => new Promise((r) => setImmediate(r));

const CATALOGUE: Record<number, Option[]> = {
  1: [
    { value: 11, label: '胸部正位片', price: 60 },
    { value: 12, label: '头颅CT平扫', price: 180.5 },
    { value: 13, label: '耗材', price: 0.1 },
    { value: 14, label: '耗材二', price: 0.2 },
  ],
  2: [{ value: 21, label: '别院项目', price: 999 }],
};

const spec: SumReactionSpec = { of: 'items', option: 'itemId', value: 'price', source: { resource: 'examItem', dependsOn: { hospitalId: '/hospitalId' } } };

describe('totalOf', () => {
  test('adds the chosen values in fen; nothing chosen, no total', () => {
    const options = [CATALOGUE[1], CATALOGUE[1]];
    expect(totalOf([11, 12], options, 'price')).toBe(240.5);
    expect(totalOf([13, 14], options, 'price')).toBe(0.3);
    expect(totalOf([undefined, null], options, 'price')).toBeUndefined();
    expect(totalOf([], [], 'price')).toBeUndefined();
    // A choice its row's options lack (another hospital's item) adds nothing.
    expect(totalOf([11, 21], options, 'price')).toBe(60);
  });
});

describe('sumReaction on a form', () => {
  function registration(load: OptionLoader) {
    const form = createForm({ values: { hospitalId: 1, items: [{}] } });
    form.createField({ name: 'hospitalId' });
    form.createArrayField({ name: 'items' });
    const price = form.createField({ name: 'price', reactions: [(f: Field) => sumReaction(f, spec, load)] });
    return { form, price };
  }

  test('follows the chosen items, asking for the options of the form hospital', async () => {
    const asked: Array<[OptionSource, Record<string, Scalar | undefined>]> = [];
    const load: OptionLoader = async (source, depends) => {
      asked.push([source, depends]);
      return CATALOGUE[depends.hospitalId as number] ?? [];
    };
    const { form, price } = registration(load);
    await flush();
    expect(price.value).toBeUndefined();
    expect(asked).toEqual([]);

    form.setValuesIn('items.0.itemId', 11);
    await flush();
    expect(price.value).toBe(60);
    expect(asked[asked.length - 1]).toEqual([spec.source, { hospitalId: 1 }]);

    form.setValuesIn('items.1', { itemId: 12 });
    await flush();
    expect(price.value).toBe(240.5);

    form.setValuesIn('items', [{ itemId: 12 }]);
    await flush();
    expect(price.value).toBe(180.5);

    // Another hospital's catalogue: the chosen item is not in it.
    form.setValuesIn('hospitalId', 2);
    await flush();
    expect(price.value).toBe(0);
  });

  test('an answer for an older choice is dropped', async () => {
    const pending: Array<() => void> = [];
    const load: OptionLoader = (_source, depends) =>
      new Promise((resolve) => pending.push(() => resolve(CATALOGUE[depends.hospitalId as number] ?? [])));
    const { form, price } = registration(load);
    form.setValuesIn('items.0.itemId', 11);
    form.setValuesIn('items.0.itemId', 12);
    expect(pending).toHaveLength(2);
    // The newer answer first, then the older one: the total stays the newer choice's.
    pending[1]();
    await flush();
    pending[0]();
    await flush();
    expect(price.value).toBe(180.5);
  });
});

describe('the exam view declares its total', () => {
  test("price is the sum of the items' catalogue prices; the scope offers $sum", () => {
    expect(views.exam.fields?.price).toEqual({ money: true, sum: { of: 'items', option: 'itemId', value: 'price' } });
    expect(views.exam.fields?.['items.itemId'].options).toEqual(spec.source);
    expect(totalScope.$sum).toBe(sumReaction);
  });
});
