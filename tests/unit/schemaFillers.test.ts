/**
 * The form's fillers (src/schema/fillers.ts), as pure functions and on a real Formily
 * form (no React). Scenarios:
 * - ageFrom (config/person.ts ageFromBirthDate, the server's rule too): years from 2 years, months
 *   under 2 years, days under a month, hours on the first day; the region's calendar
 *   (UTC+8) decides the day; a future or impossible date gives nothing
 * - pinyinName with pinyin-pro: "Family^Given" capitalised, compound surnames,
 *   surname readings; a Latin name as written
 * - mayFill: empty, or still holding what was filled
 * - fillReaction on a form: the exam view's name fills the English name and follows
 *   later edits until the user types one; a birth date fills age and unit only while
 *   the age is empty; a cleared source clears only filled values; a read-pretty form
 *   fills nothing
 * - the option filler: an exam item chosen in a row fills that row's part from the
 *   item's option (asked for with the form's hospital); a part the user chose stays
 * - the exam view declares its fills, and toFormily turns them into $fill reactions
 */
import { createForm, type Field } from '@formily/core';
import { pinyin } from 'pinyin-pro';
import { AGE_UNIT, ageFromBirthDate as ageFrom, pinyinName, type PinyinFn } from '../../config/person';
import { FILLERS, fillReaction, formScope, mayFill } from '@/schema/fillers';
import { toFormily } from '@/schema/toFormily';
import { views } from '@/shared/schema/views';

/** 2026-03-14 10:00 in the region (02:00 UTC). */
const NOW = new Date('2026-03-14T02:00:00.000Z');

describe('ageFrom', () => {
  test('years from two years on', () => {
    expect(ageFrom('1949-12-31', NOW)).toEqual({ age: 76, ageUnit: AGE_UNIT.year });
    expect(ageFrom('2024-03-14', NOW)).toEqual({ age: 2, ageUnit: AGE_UNIT.year });
    expect(ageFrom('2024-03-15', NOW)).toEqual({ age: 23, ageUnit: AGE_UNIT.month });
  });

  test('months under two years, days under a month, hours on the first day', () => {
    expect(ageFrom('2025-03-14', NOW)).toEqual({ age: 12, ageUnit: AGE_UNIT.month });
    expect(ageFrom('2026-02-14', NOW)).toEqual({ age: 1, ageUnit: AGE_UNIT.month });
    expect(ageFrom('2026-02-15', NOW)).toEqual({ age: 27, ageUnit: AGE_UNIT.day });
    expect(ageFrom('2026-03-13', NOW)).toEqual({ age: 1, ageUnit: AGE_UNIT.day });
    expect(ageFrom('2026-03-14', NOW)).toEqual({ age: 10, ageUnit: AGE_UNIT.hour });
    expect(ageFrom('2026-03-14', new Date('2026-03-13T16:10:00.000Z'))).toEqual({ age: 1, ageUnit: AGE_UNIT.hour });
  });

  test("the region's day: 23:30 UTC is already the next day there", () => {
    expect(ageFrom('2025-03-15', new Date('2026-03-14T23:30:00.000Z'))).toEqual({ age: 12, ageUnit: AGE_UNIT.month });
  });

  test('nothing for a future, impossible or malformed date', () => {
    expect(ageFrom('2026-03-15', NOW)).toBeUndefined();
    expect(ageFrom('2025-02-30', NOW)).toBeUndefined();
    expect(ageFrom('14/03/2020', NOW)).toBeUndefined();
    expect(ageFrom('1600-01-01', NOW)).toBeUndefined();
    expect(FILLERS.age('2025-03-14', NOW)).toEqual([12, AGE_UNIT.month]);
    expect(FILLERS.age(undefined, NOW)).toBeUndefined();
  });
});

describe('pinyinName', () => {
  const py = pinyin as unknown as PinyinFn;
  test('Family^Given in capitalised pinyin', () => {
    expect(pinyinName('张三丰', py)).toBe('Zhang^Sanfeng');
    expect(pinyinName(' 王芳 ', py)).toBe('Wang^Fang');
    expect(pinyinName('欧阳娜娜', py)).toBe('Ouyang^Nana');
    expect(pinyinName('单田芳', py)).toBe('Shan^Tianfang');
    expect(pinyinName('吕', py)).toBe('Lv');
  });

  test('a name without Chinese characters stays as written', () => {
    expect(pinyinName('John Smith', py)).toBe('John Smith');
  });

  test('the filler loads pinyin-pro itself and fills nothing for a Latin name', async () => {
    await expect(FILLERS.pinyin('李四')).resolves.toEqual(['Li^Si']);
    await expect(FILLERS.pinyin('Anna')).resolves.toBeUndefined();
    await expect(FILLERS.pinyin(undefined)).resolves.toBeUndefined();
  });
});

describe('mayFill', () => {
  test('empty, or what was filled last', () => {
    expect(mayFill(undefined, undefined)).toBe(true);
    expect(mayFill('', 'x')).toBe(true);
    expect(mayFill(null, undefined)).toBe(true);
    expect(mayFill('Zhang^San', 'Zhang^San')).toBe(true);
    expect(mayFill('Typed', 'Zhang^San')).toBe(false);
    expect(mayFill('Typed', undefined)).toBe(false);
    expect(mayFill(0, undefined)).toBe(false);
  });
});

describe('fillReaction on a form', () => {
  const settle = () => new Promise((r) => setTimeout(r, 30));

  function registration(readPretty = false) {
    const form = createForm({ readPretty });
    const name = form.createField({ name: 'hisPatientName', reactions: [(f: Field) => fillReaction(f, 'pinyin', ['hisPatientNameEn'])] });
    const en = form.createField({ name: 'hisPatientNameEn' });
    const birth = form.createField({ name: 'birthDate', reactions: [(f: Field) => fillReaction(f, 'age', ['age', 'ageUnit'])] });
    const age = form.createField({ name: 'age' });
    const unit = form.createField({ name: 'ageUnit' });
    return { form, name, en, birth, age, unit };
  }

  test('the name fills the English name and follows it until the user types one', async () => {
    const { name, en } = registration();
    name.onInput('张');
    await settle();
    expect(en.value).toBe('Zhang');
    name.onInput('张三');
    await settle();
    expect(en.value).toBe('Zhang^San');
    en.onInput('Sam Zhang');
    name.onInput('张三丰');
    await settle();
    expect(en.value).toBe('Sam Zhang');
  });

  test('a cleared name clears only a filled English name', async () => {
    const { name, en } = registration();
    name.onInput('李四');
    await settle();
    expect(en.value).toBe('Li^Si');
    name.onInput('');
    await settle();
    expect(en.value).toBeUndefined();
  });

  test('a birth date fills age and unit while the age is empty', async () => {
    const { birth, age, unit } = registration();
    birth.onInput('1949-12-31');
    await settle();
    expect(typeof age.value).toBe('number');
    expect(age.value).toBeGreaterThanOrEqual(76);
    expect(unit.value).toBe(AGE_UNIT.year);
    age.onInput(40);
    birth.onInput('2000-01-01');
    await settle();
    expect(age.value).toBe(40);
    expect(unit.value).toBe(AGE_UNIT.year);
  });

  test('a read-pretty form fills nothing', async () => {
    const { name, en } = registration(true);
    name.setValue('张三');
    await settle();
    expect(en.value).toBeUndefined();
  });
});

describe('the option filler on a list of rows', () => {
  const settle = () => new Promise((r) => setTimeout(r, 30));
  const source = views.exam.fields!['items.itemId'].options!;
  const CATALOGUE: Record<number, Array<{ value: number; label: string; organId?: number }>> = {
    1: [{ value: 11, label: '胸部 CT', organId: 101 }, { value: 12, label: '头颅 CT', organId: 102 }, { value: 13, label: '全身检查' }],
  };

  test("a chosen item fills its row's part; what the user chose stays", async () => {
    const asked: Array<Record<string, unknown>> = [];
    const load = async (_source: unknown, depends: Record<string, unknown>) => {
      asked.push(depends);
      return CATALOGUE[depends.hospitalId as number] ?? [];
    };
    const form = createForm({ values: { hospitalId: 1, items: [{}, {}] } });
    form.createField({ name: 'hospitalId' });
    form.createArrayField({ name: 'items' });
    const row = (i: number) => {
      const item = form.createField({ name: 'itemId', basePath: `items.${i}`, reactions: [(f: Field) => fillReaction(f, 'option', ['organId'], source, load)] });
      const organ = form.createField({ name: 'organId', basePath: `items.${i}` });
      return { item, organ };
    };
    const [first, second] = [row(0), row(1)];
    first.item.onInput(11);
    await settle();
    expect(first.organ.value).toBe(101);
    expect(second.organ.value).toBeUndefined();
    expect(asked[asked.length - 1]).toEqual({ hospitalId: 1 });
    // Another item: the part follows while it is still the filled one.
    first.item.onInput(12);
    await settle();
    expect(first.organ.value).toBe(102);
    // The user picks a part himself: a new item leaves it.
    second.organ.onInput(999);
    second.item.onInput(11);
    await settle();
    expect(second.organ.value).toBe(999);
    // An item without a part fills nothing it could not know.
    first.item.onInput(13);
    await settle();
    expect(first.organ.value).toBeUndefined();
  });
});

describe('the exam view declares its fills', () => {
  const t = (k: string) => k;
  test('name → pinyin English name, birth date → age and unit, as $fill reactions in the scope', () => {
    expect(views.exam.fields?.hisPatientName.fill).toEqual({ with: 'pinyin', into: ['hisPatientNameEn'] });
    expect(views.exam.fields?.birthDate.fill).toEqual({ with: 'age', into: ['age', 'ageUnit'] });
    const text = JSON.stringify(toFormily(views.exam, { t, mode: 'create' }));
    expect(text).toContain('{{$fill($self, \\"pinyin\\", [\\"hisPatientNameEn\\"])}}');
    expect(text).toContain('{{$fill($self, \\"age\\", [\\"age\\",\\"ageUnit\\"])}}');
    expect(views.exam.fields?.['items.itemId'].fill).toEqual({ with: 'option', into: ['organId'] });
    expect(text).toContain('{{$fill($self, \\"option\\", [\\"organId\\"], {\\"resource\\":\\"examItem\\"');
    expect(JSON.stringify(toFormily(views.exam, { t, mode: 'detail' }))).not.toContain('$fill');
    expect(formScope.$fill).toBe(fillReaction);
  });
});
