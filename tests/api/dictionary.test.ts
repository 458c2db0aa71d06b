/**
 * Data dictionaries through the API (server/routes/dictionary.ts), as the regional
 * administrator:
 * - the built-in set of migration 0006 is there; options by code give enabled items by
 *   sort, saying which are built in; every built-in item has its label in zh-CN, en-US
 *   and ru-RU (dictionary.<code>.<value> or the code table of the dictionary's name),
 *   in English not the stored Chinese one; an added item keeps its stored label
 * - dictionaries: create, duplicate code BDT201 / name BDT202 with existingId, overwrite
 *   updates that row, built-in delete BDT205 (nothing changes), a field error names the field
 * - items: create, duplicate label BDT203 / value BDT204, overwrite, parent in the same
 *   dictionary, delete with children BDT206 and built-in BDT205 (nothing changes);
 *   deleting a dictionary deletes its items
 * - Excel: export → import round trip into another dictionary; an import with two bad
 *   rows reports exactly them and stores the rest; the failed-rows file holds exactly
 *   those two rows with their reasons; a file that is not the template → BDT207
 */
import ExcelJS from 'exceljs';
import { translate } from '../../locales';
import { dictionaryLabel } from '../../src/schema/options';
import { dbKinds } from '../support/db';
import { startTestPlatform, type TestPlatform } from '../support/app';
import { authed, login } from '../support/auth';

const BASE = '/api/bdt/v1/dictionary';
const HEADER = ['label', 'labelCode', 'value', 'sort', 'status', 'remarks', 'parentValue'];

async function xlsx(rows: Array<Array<string | number | null>>): Promise<string> {
  const wb = new ExcelJS.Workbook();
  const sheet = wb.addWorksheet('items');
  for (const r of rows) sheet.addRow(r);
  return Buffer.from(await wb.xlsx.writeBuffer()).toString('base64');
}

async function readXlsx(bytes: Buffer): Promise<string[][]> {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(bytes);
  const out: string[][] = [];
  const sheet = wb.worksheets[0];
  // Every row as wide as the sheet: empty cells are '' rather than missing.
  sheet.eachRow((r) => out.push(Array.from({ length: sheet.columnCount }, (_, i) => r.getCell(i + 1).text)));
  return out;
}

describe.each(dbKinds)('data dictionaries on %s', (kind) => {
  let p: TestPlatform;
  let admin: string;
  const call = (method: 'GET' | 'POST', url: string, payload?: object) =>
    p.app.inject({ method, url, headers: authed(admin), payload }).then((r) => ({ code: r.statusCode, body: r.json() }));
  const count = async (sql: string, params: unknown[] = []) => Number((await p.db.query<{ n: string }>(`SELECT count(*) AS n FROM ${sql}`, params)).rows[0].n);

  beforeAll(async () => {
    p = await startTestPlatform(kind);
    admin = await login(p.app, '13800000001');
  });
  afterAll(() => p.close());

  test('every built-in item is labelled in each complete language; an added one keeps its label', async () => {
    const { rows } = await p.db.query<{ code: string; value: string; label: string }>(
      'SELECT d.code, i.value, i.label FROM dictionary_item i JOIN dictionary d ON d.id = i.dictionary_id WHERE i.builtin ORDER BY d.code, i.sort',
    );
    expect(rows.length).toBeGreaterThan(50);
    for (const lang of ['zh-CN', 'en-US', 'ru-RU']) {
      const t = (key: string, params?: Record<string, unknown>) => translate(lang, key, params);
      // A text of the language, not the stored label handed back.
      const unlabelled = rows.filter((r) => {
        const keys = [`dictionary.${r.code}.${r.value}`, `code.${r.code}.${r.value}`];
        return !keys.some((k) => t(k) !== k);
      });
      expect(unlabelled).toEqual([]);
    }
    const en = (key: string) => translate('en-US', key);
    const ct = rows.find((r) => r.code === 'modality' && r.value === 'CT')!;
    expect(dictionaryLabel(en, 'modality', { ...ct, builtin: true })).toBe('CT Computed tomography');
    expect(dictionaryLabel(en, 'sex', { value: '1', label: '男', builtin: true })).toBe(translate('en-US', 'code.sex.1'));
    expect(dictionaryLabel(en, 'modality', { value: 'CT', label: 'CT 自定义', builtin: false })).toBe('CT 自定义');
  });

  test('the built-in set is installed; options by code are the enabled items by sort', async () => {
    const sex = await call('GET', `${BASE}/options?code=sex`);
    expect(sex.body.data).toEqual([
      { value: '1', label: '男', builtin: true },
      { value: '2', label: '女', builtin: true },
      { value: '3', label: '其他', builtin: true },
      { value: '4', label: '未知', builtin: true },
    ]);
    const source = (await call('GET', `${BASE}/options?code=patientSource`)).body.data.map((o: { value: string }) => o.value);
    expect(source).toEqual(['1', '2', '3', '4', '99']);
    const modality = (await call('GET', `${BASE}/options?code=modality`)).body.data.map((o: { value: string }) => o.value);
    expect(modality).toEqual(expect.arrayContaining(['CR', 'CT', 'DR', 'DX', 'MR', 'MG', 'US', 'XA', 'RF', 'NM', 'PT', 'OT', 'ES']));
    for (const code of ['ageUnit', 'filmType', 'registerType', 'examState', 'bodyPart', 'attachmentType', 'sharePlatform', 'aiResult']) {
      expect((await call('GET', `${BASE}/options?code=${code}`)).body.data.length).toBeGreaterThan(1);
    }
    expect((await call('GET', `${BASE}/options?code=nope`)).body.status).toBe('BDT104');
    const dictionaries = (await call('GET', `${BASE}/options`)).body.data as Array<{ label: string }>;
    expect(dictionaries.map((d) => d.label)).toContain('性别');
    const listed = await call('POST', `${BASE}/list`, { filters: { code: 'sex' } });
    expect(listed.body.data.list).toEqual([expect.objectContaining({ code: 'sex', name: '性别', builtin: true, itemCount: 4, status: 1 })]);
  });

  test('dictionaries: create, duplicates with the existing id, overwrite, built-ins stay', async () => {
    const created = await call('POST', `${BASE}/save`, { name: '血型', code: 'bloodType', remarks: 'ABO' });
    expect(created.body).toMatchObject({ status: '0', data: { name: '血型', code: 'bloodType', status: 1, builtin: false, itemCount: 0 } });
    const id = created.body.data.id;

    const dupCode = await call('POST', `${BASE}/save`, { name: '血型2', code: 'bloodType' });
    expect(dupCode).toMatchObject({ code: 409, body: { status: 'BDT201', existingId: id } });
    const dupName = await call('POST', `${BASE}/save`, { name: '血型', code: 'bloodType2' });
    expect(dupName).toMatchObject({ code: 409, body: { status: 'BDT202', existingId: id } });
    expect(await count("dictionary WHERE name LIKE '血型%'")).toBe(1);

    const overwritten = await call('POST', `${BASE}/save`, { name: '血型（ABO）', code: 'bloodType', overwrite: true });
    expect(overwritten.body.data).toMatchObject({ id, name: '血型（ABO）', code: 'bloodType' });
    expect(overwritten.body.data.remarks).toBeUndefined();
    expect(await count("dictionary WHERE code = 'bloodType'")).toBe(1);

    // Editing into another row's code is refused without an offer to overwrite.
    const other = (await call('POST', `${BASE}/save`, { name: 'Rh血型', code: 'rh' })).body.data.id;
    const clash = await call('POST', `${BASE}/save`, { id: other, name: 'Rh血型', code: 'bloodType', overwrite: true });
    expect(clash.body.status).toBe('BDT201');
    expect(clash.body.existingId).toBeUndefined();

    const badCode = await call('POST', `${BASE}/save`, { name: '坏编码', code: 'bad-code' });
    expect(badCode).toMatchObject({ code: 400, body: { status: 'UAA421', field: 'code' } });
    const longName = await call('POST', `${BASE}/save`, { name: 'x'.repeat(33), code: 'longName' });
    expect(longName.body).toMatchObject({ status: 'UAA421', field: 'name' });

    const sexId = (await p.db.query<{ id: number }>("SELECT id FROM dictionary WHERE code = 'sex'")).rows[0].id;
    const before = await count('dictionary_item WHERE dictionary_id = $1', [sexId]);
    expect((await call('POST', `${BASE}/delete/${sexId}`)).body.status).toBe('BDT205');
    expect(await count('dictionary WHERE id = $1', [sexId])).toBe(1);
    expect(await count('dictionary_item WHERE dictionary_id = $1', [sexId])).toBe(before);

    expect((await call('POST', `${BASE}/delete/${other}`)).body.status).toBe('0');
    expect((await call('GET', `${BASE}/detail/${other}`)).body.status).toBe('BDT104');
  });

  test('items: duplicates, overwrite, parents, deletes refused with children or built-in', async () => {
    const dictId = (await call('POST', `${BASE}/save`, { name: '检查方位', code: 'position' })).body.data.id;
    const save = (item: object) => call('POST', `${BASE}/item/save`, { dictionaryId: dictId, ...item });
    const head = await save({ label: '头部', value: 'HEAD', labelCode: 'head', sort: 1 });
    expect(head.body).toMatchObject({ status: '0', data: { label: '头部', value: 'HEAD', labelCode: 'head', sort: 1, status: 1, builtin: false } });
    const headId = head.body.data.id;
    const skull = await save({ label: '颅骨', value: 'SKULL', parentId: headId, sort: 2 });
    expect(skull.body.data).toMatchObject({ parentId: headId, parentLabel: '头部' });

    expect(await save({ label: '头部', value: 'HEAD2' })).toMatchObject({ code: 409, body: { status: 'BDT203', existingId: headId } });
    expect(await save({ label: '头颅', value: 'HEAD' })).toMatchObject({ code: 409, body: { status: 'BDT204', existingId: headId } });
    // Label of one item and value of another: no single row to overwrite.
    const two = await save({ label: '头部', value: 'SKULL', overwrite: true });
    expect(two.body.status).toBe('BDT203');
    expect(two.body.existingId).toBeUndefined();
    const over = await save({ label: '头颅', value: 'HEAD', sort: 5, overwrite: true });
    expect(over.body.data).toMatchObject({ id: headId, label: '头颅', value: 'HEAD', sort: 5 });
    expect(await count('dictionary_item WHERE dictionary_id = $1', [dictId])).toBe(2);

    expect((await save({ label: '值有横线', value: 'A-1' })).body).toMatchObject({ status: 'UAA421', field: 'value' });
    expect((await save({ label: '十七个字十七个字十七个字十七个字十', value: 'L17' })).body).toMatchObject({ status: 'UAA421', field: 'label' });
    // A parent from another dictionary, or the item itself, is refused.
    const maleId = (await p.db.query<{ id: number }>("SELECT i.id FROM dictionary_item i JOIN dictionary d ON d.id = i.dictionary_id WHERE d.code = 'sex' AND i.value = '1'")).rows[0].id;
    expect((await save({ label: '错父', value: 'WRONG', parentId: maleId })).body).toMatchObject({ status: 'UAA421', field: 'parentId' });
    expect((await save({ id: headId, label: '头颅', value: 'HEAD', parentId: skull.body.data.id })).body).toMatchObject({ status: 'UAA421', field: 'parentId' });

    expect((await call('POST', `${BASE}/item/delete/${headId}`)).body.status).toBe('BDT206');
    expect(await count('dictionary_item WHERE id = $1', [headId])).toBe(1);
    expect((await call('POST', `${BASE}/item/delete/${maleId}`)).body.status).toBe('BDT205');
    expect(await count('dictionary_item WHERE id = $1', [maleId])).toBe(1);

    const options = await call('GET', `${BASE}/item/options?dictionaryId=${dictId}`);
    expect(options.body.data.map((o: { label: string }) => o.label)).toEqual(['颅骨', '头颅']);
    const listed = await call('POST', `${BASE}/item/list`, { filters: { dictionaryId: dictId }, sort: { field: 'sort', order: 'ascend' } });
    expect(listed.body.data.list.map((i: { value: string }) => i.value)).toEqual(['SKULL', 'HEAD']);

    // Disabled items are not offered.
    await save({ id: skull.body.data.id, label: '颅骨', value: 'SKULL', parentId: headId, status: 0 });
    expect((await call('GET', `${BASE}/options?code=position`)).body.data).toEqual([{ value: 'HEAD', label: '头颅', builtin: false }]);

    expect((await call('POST', `${BASE}/item/delete/${skull.body.data.id}`)).body.status).toBe('0');
    expect((await call('POST', `${BASE}/delete/${dictId}`)).body.status).toBe('0');
    expect(await count('dictionary_item WHERE dictionary_id = $1', [dictId])).toBe(0);
  });

  test('Excel: template, export → import round trip, failed rows reported and downloadable, wrong template', async () => {
    const template = await p.app.inject({ method: 'GET', url: `${BASE}/item/template`, headers: authed(admin) });
    expect(template.headers['content-type']).toContain('spreadsheetml');
    const zhHeader = HEADER.map((k) => translate('zh-CN', `entity.dictionaryItem.field.${k}`));
    expect(await readXlsx(template.rawPayload)).toEqual([zhHeader]);

    // Round trip: the built-in body parts into a new dictionary, parents by value.
    const bodyPart = (await p.db.query<{ id: number }>("SELECT id FROM dictionary WHERE code = 'bodyPart'")).rows[0].id;
    const chest = (await p.db.query<{ id: number }>('SELECT id FROM dictionary_item WHERE dictionary_id = $1 AND value = $2', [bodyPart, 'CHEST'])).rows[0].id;
    await call('POST', `${BASE}/item/save`, { dictionaryId: bodyPart, label: '肺', value: 'LUNG', parentId: chest, sort: 20, remarks: '胸部之下' });
    const exported = await p.app.inject({ method: 'GET', url: `${BASE}/item/export?dictionaryId=${bodyPart}`, headers: authed(admin) });
    expect(exported.statusCode).toBe(200);
    const sheet = await readXlsx(exported.rawPayload);
    expect(sheet[0]).toEqual(zhHeader);
    expect(sheet).toContainEqual(['肺', '', 'LUNG', '20', '1', '胸部之下', 'CHEST']);

    const copy = (await call('POST', `${BASE}/save`, { name: '部位副本', code: 'bodyPartCopy' })).body.data.id;
    const content = exported.rawPayload.toString('base64');
    const imported = await call('POST', `${BASE}/item/import`, { dictionaryId: copy, fileName: 'bodyPart.xlsx', content });
    expect(imported.body).toEqual({ status: '0', data: { imported: sheet.length - 1, failed: [] } });
    const pick = (id: number) =>
      p.db
        .query(
          `SELECT i.label, i.label_code, i.value, i.sort, i.status, i.remarks, pr.value AS parent FROM dictionary_item i
             LEFT JOIN dictionary_item pr ON pr.id = i.parent_id WHERE i.dictionary_id = $1 ORDER BY i.value`,
          [id],
        )
        .then((r) => r.rows);
    expect(await pick(copy)).toEqual(await pick(bodyPart));
    // The same file again: every row is a duplicate, unless overwriting.
    const again = await call('POST', `${BASE}/item/import`, { dictionaryId: copy, fileName: 'bodyPart.xlsx', content });
    expect(again.body.data.imported).toBe(0);
    expect(again.body.data.failed).toHaveLength(sheet.length - 1);
    const overwrite = await call('POST', `${BASE}/item/import`, { dictionaryId: copy, fileName: 'bodyPart.xlsx', content, overwrite: true });
    expect(overwrite.body.data).toEqual({ imported: sheet.length - 1, failed: [] });
    expect(await pick(copy)).toEqual(await pick(bodyPart));

    // Two bad rows among four: a value with a hyphen (row 3) and a label taken by an earlier row (row 5).
    const target = (await call('POST', `${BASE}/save`, { name: '导入测试', code: 'importTest' })).body.data.id;
    const file = await xlsx([
      zhHeader,
      ['甲', 'a', 'A', 1, 1, null, null],
      ['乙', 'b', 'B-2', 2, 1, '坏值', null],
      ['丙', 'c', 'C', 3, 1, null, 'A'],
      ['甲', 'd', 'D', 4, 1, '重复标签', null],
    ]);
    const partly = await call('POST', `${BASE}/item/import`, { dictionaryId: target, fileName: 'items.xlsx', content: file });
    expect(partly.body.data.imported).toBe(2);
    expect(partly.body.data.failed.map((f: { row: number }) => f.row)).toEqual([3, 5]);
    expect(partly.body.data.failed[1].reason).toBe(translate('zh-CN', 'error.BDT203'));
    expect(partly.body.data.failedFile).toMatch(/^[a-f0-9]{32}$/);
    expect((await pick(target)).map((r) => [r.value, r.parent])).toEqual([['A', null], ['C', 'A']]);

    const failedFile = await p.app.inject({ method: 'GET', url: `${BASE}/item/import/failed/${partly.body.data.failedFile}`, headers: authed(admin) });
    expect(failedFile.statusCode).toBe(200);
    const failedRows = await readXlsx(failedFile.rawPayload);
    expect(failedRows[0]).toEqual([...zhHeader, translate('zh-CN', 'entity.dictionaryItem.import.reason')]);
    expect(failedRows.slice(1).map((r) => r.slice(0, 7))).toEqual([
      ['乙', 'b', 'B-2', '2', '1', '坏值', ''],
      ['甲', 'd', 'D', '4', '1', '重复标签', ''],
    ]);
    expect(failedRows.slice(1).map((r) => r[7])).toEqual(partly.body.data.failed.map((f: { reason: string }) => f.reason));

    // English column names are the template too; anything else is not.
    const english = await xlsx([HEADER.map((k) => translate('en-US', `entity.dictionaryItem.field.${k}`)), ['丁', null, 'E', null, null, null, null]]);
    expect((await call('POST', `${BASE}/item/import`, { dictionaryId: target, content: english })).body.data).toEqual({ imported: 1, failed: [] });
    const wrong = await xlsx([['名称', '编码'], ['x', 'y']]);
    expect(await call('POST', `${BASE}/item/import`, { dictionaryId: target, content: wrong })).toMatchObject({ code: 422, body: { status: 'BDT207' } });
    const notExcel = await call('POST', `${BASE}/item/import`, { dictionaryId: target, content: Buffer.from('hello').toString('base64') });
    expect(notExcel.body.status).toBe('BDT207');
    expect(await count('dictionary_item WHERE dictionary_id = $1', [target])).toBe(3);
    expect((await call('GET', `${BASE}/item/import/failed/${'0'.repeat(32)}`)).body.status).toBe('BDT104');
  });
});
