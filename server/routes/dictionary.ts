/**
 * /api/bdt/v1/dictionary: data dictionaries and their items (spec sections 3, 5, 7),
 * region-wide, under the permission module system.dictionary.
 * - resources `dictionary` and `dictionary/item` (list, detail, save, delete, options)
 * - duplicates (BDT201-204) carry the id of the row in the way (`existingId`); the
 *   client asks and saves again with `overwrite: true`, which updates that row
 * - built-ins (BDT205) and items with children (BDT206) are never deleted
 * - GET options?code= gives a dictionary's enabled items: what forms offer; the client
 *   labels built-in ones in the user's language (src/schema/options.ts dictionaryLabel)
 * - Excel: template, export, import (rows checked by the entity schema and the same
 *   duplicate rules as save; good rows stored in one transaction) and the failed
 *   rows back as a file kept in the platform's file storage, so any instance serves it
 * Dictionaries are the region's: only a caller with region scope changes them.
 * Touches only the tables of migration 0006 and the storage keys under imports/dictionary/.
 */
import crypto from 'node:crypto';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type ExcelJS from 'exceljs';
import { excel } from '../lib/excel';
import { languageCodes, translate } from '../../locales';
import type { Queryable } from '../db';
import { AppError, errorTextKey } from '../lib/errors';
import { ok, replies } from '../lib/reply';
import { registerResource, uniqueOr } from '../lib/resource';
import type { AuditDeclaration } from '../plugins/audit';
import { caller } from '../plugins/auth';
import { t, validationFailure } from '../plugins/platform';
import type { Dictionary } from '../../src/shared/generated/entities/dictionary';
import type { DictionaryItem } from '../../src/shared/generated/entities/dictionaryItem';
import { common } from '../lib/schemas';

const MODULE = 'system.dictionary';

const DICT_SELECT = `d.id, d.name, d.code, d.status, d.remarks, d.builtin,
  (SELECT count(*)::int FROM dictionary_item c WHERE c.dictionary_id = d.id) AS "itemCount",
  d.created_at AS "createdAt", d.updated_at AS "updatedAt"`;

const ITEM_SELECT = `i.id, i.dictionary_id AS "dictionaryId", i.parent_id AS "parentId", i.label, i.label_code AS "labelCode",
  i.value, i.sort, i.status, i.remarks, i.builtin, p.label AS "parentLabel", i.created_at AS "createdAt", i.updated_at AS "updatedAt"`;
const ITEM_FROM = 'dictionary_item i LEFT JOIN dictionary_item p ON p.id = i.parent_id';

/** A row in the way of a save: the catalogue code that says why, and its id. */
interface Conflict {
  code: string;
  id: number;
}

/**
 * The row a save writes to, given the rows in the way (in catalogue order). Overwriting
 * replaces one existing row with what was submitted, so it applies to a new record
 * with a single row in the way; otherwise the first conflict refuses the save, naming
 * that row (existingId) only when overwriting it is possible.
 */
function saveTarget(conflicts: Conflict[], body: { id?: number; overwrite?: boolean }): number | undefined {
  if (!conflicts.length) return body.id;
  const single = new Set(conflicts.map((c) => c.id)).size === 1 && !body.id;
  if (single && body.overwrite) return conflicts[0].id;
  throw new AppError(conflicts[0].code, undefined, single ? { existingId: conflicts[0].id } : undefined);
}

async function dictionaryConflicts(q: Queryable, d: Dictionary): Promise<Conflict[]> {
  const { rows } = await q.query<{ id: number; sameCode: boolean; sameName: boolean }>(
    `SELECT id, code = $1 AS "sameCode", name = $2 AS "sameName" FROM dictionary
      WHERE (code = $1 OR name = $2) AND id IS DISTINCT FROM $3::int ORDER BY id`,
    [d.code, d.name, d.id ?? null],
  );
  return [
    ...rows.filter((r) => r.sameCode).map((r) => ({ code: 'BDT201', id: r.id })),
    ...rows.filter((r) => r.sameName).map((r) => ({ code: 'BDT202', id: r.id })),
  ];
}

async function itemConflicts(q: Queryable, item: Pick<DictionaryItem, 'id' | 'dictionaryId' | 'label' | 'value'>): Promise<Conflict[]> {
  const { rows } = await q.query<{ id: number; sameLabel: boolean; sameValue: boolean }>(
    `SELECT id, label = $2 AS "sameLabel", value = $3 AS "sameValue" FROM dictionary_item
      WHERE dictionary_id = $1 AND (label = $2 OR value = $3) AND id IS DISTINCT FROM $4::int ORDER BY id`,
    [item.dictionaryId, item.label, item.value, item.id ?? null],
  );
  return [
    ...rows.filter((r) => r.sameLabel).map((r) => ({ code: 'BDT203', id: r.id })),
    ...rows.filter((r) => r.sameValue).map((r) => ({ code: 'BDT204', id: r.id })),
  ];
}

const ITEM_UNIQUE = { dictionary_item_label_key: 'BDT203', dictionary_item_value_key: 'BDT204' };

function parentError(): AppError {
  return new AppError('UAA421', { detailKey: 'validation.invalid', field: 'parentId' }, { field: 'parentId' });
}

/**
 * Writes one item (insert, or update of `target`) after its parent was checked: the
 * parent is an item of the same dictionary and not the item itself or one below it.
 */
async function writeItem(q: Queryable, item: DictionaryItem, target: number | undefined): Promise<number> {
  if (item.parentId) {
    const { rows } = await q.query<{ ok: boolean }>(
      `WITH RECURSIVE up AS (
         SELECT id, parent_id, dictionary_id FROM dictionary_item WHERE id = $1
         UNION ALL SELECT i.id, i.parent_id, i.dictionary_id FROM dictionary_item i JOIN up ON i.id = up.parent_id
       )
       SELECT bool_and(dictionary_id = $2) AND bool_and(id IS DISTINCT FROM $3::int) AS ok FROM up`,
      [item.parentId, item.dictionaryId, target ?? null],
    );
    if (!rows[0]?.ok) throw parentError();
  }
  const values = [item.dictionaryId, item.parentId ?? null, item.label, item.labelCode ?? null, item.value, item.sort ?? 0, item.status ?? 1, item.remarks ?? null];
  return uniqueOr(async () => {
    if (target) {
      await q.query(
        `UPDATE dictionary_item SET dictionary_id = $2, parent_id = $3, label = $4, label_code = $5, value = $6, sort = $7, status = $8,
                remarks = $9, updated_at = now() WHERE id = $1`,
        [target, ...values],
      );
      return target;
    }
    const { rows } = await q.query<{ id: number }>(
      `INSERT INTO dictionary_item (dictionary_id, parent_id, label, label_code, value, sort, status, remarks)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
      values,
    );
    return rows[0].id;
  }, ITEM_UNIQUE);
}

async function dictionaryExists(q: Queryable, id: number): Promise<{ code: string } | undefined> {
  const { rows } = await q.query<{ code: string }>('SELECT code FROM dictionary WHERE id = $1', [id]);
  return rows[0];
}

// ---------------------------------------------------------------- Excel

/** The template's columns, in order; header texts are entity.dictionaryItem.field.<key> (or the key). */
const COLUMNS = ['label', 'labelCode', 'value', 'sort', 'status', 'remarks', 'parentValue'] as const;
type ColumnKey = (typeof COLUMNS)[number];
type SheetRow = Partial<Record<ColumnKey, string>>;

const headerKey = (key: string) => `entity.dictionaryItem.field.${key}`;

/** A header cell matches a column when it is the key or the column's title in any language. */
function headerMatches(cell: string, key: ColumnKey): boolean {
  const text = cell.trim();
  return text === key || languageCodes.some((lang) => translate(lang, headerKey(key)) === text);
}

async function workbook(lang: string, rows: SheetRow[], reasons?: string[]): Promise<Buffer> {
  const wb = new (await excel()).Workbook();
  const sheet = wb.addWorksheet('items');
  const header = COLUMNS.map((k) => translate(lang, headerKey(k)));
  if (reasons) header.push(translate(lang, 'entity.dictionaryItem.import.reason'));
  sheet.addRow(header).font = { bold: true };
  rows.forEach((r, i) => {
    const cells: Array<string | number | null> = COLUMNS.map((k) => {
      const v = r[k];
      if (v === undefined || v === '') return null;
      return (k === 'sort' || k === 'status') && /^-?\d+$/.test(v) ? Number(v) : v;
    });
    if (reasons) cells.push(reasons[i]);
    sheet.addRow(cells);
  });
  sheet.columns.forEach((c) => {
    c.width = 18;
  });
  return Buffer.from(await wb.xlsx.writeBuffer());
}

function sendXlsx(reply: FastifyReply, fileName: string, bytes: Buffer) {
  return reply
    .type('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet')
    .header('Content-Disposition', `attachment; filename="${fileName.replace(/[^\w.-]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(fileName)}`)
    .send(bytes);
}

/** The data rows of an uploaded file (with their sheet row numbers), or BDT207 when it is not the template. */
async function readSheet(content: Buffer): Promise<Array<{ row: number; cells: SheetRow }>> {
  const wb = new (await excel()).Workbook();
  try {
    // exceljs's typings predate Buffer's generic parameter.
    await wb.xlsx.load(content as unknown as ExcelJS.Buffer);
  } catch {
    throw new AppError('BDT207');
  }
  const sheet = wb.worksheets[0];
  if (!sheet) throw new AppError('BDT207');
  const header = sheet.getRow(1);
  const texts = COLUMNS.map((_, i) => header.getCell(i + 1).text ?? '');
  const extra = header.getCell(COLUMNS.length + 1).text?.trim();
  if (COLUMNS.some((key, i) => !headerMatches(texts[i], key)) || extra) throw new AppError('BDT207');
  const out: Array<{ row: number; cells: SheetRow }> = [];
  sheet.eachRow({ includeEmpty: false }, (r, n) => {
    if (n === 1) return;
    const cells: SheetRow = {};
    COLUMNS.forEach((key, i) => {
      const v = (r.getCell(i + 1).text ?? '').trim();
      if (v) cells[key] = v;
    });
    if (Object.keys(cells).length) out.push({ row: n, cells });
  });
  return out;
}

/** A failed row's reason in the caller's language. */
function reasonText(request: FastifyRequest, err: unknown): string {
  if (!(err instanceof AppError)) throw err;
  const p = err.params as { detailKey?: string; field?: string; limit?: unknown } | undefined;
  if (p?.detailKey) {
    const field = p.field ? t(request, headerKey(p.field)) : '';
    return t(request, p.detailKey, { field, limit: p.limit });
  }
  return t(request, errorTextKey(err.code), err.params);
}

const FAILED_PREFIX = 'imports/dictionary/';
const TOKEN = /^[a-f0-9]{32}$/;

const importBody = {
  type: 'object',
  required: ['dictionaryId', 'content'],
  properties: {
    dictionaryId: { $ref: 'common.json#/definitions/id' },
    fileName: { type: 'string', maxLength: 255 },
    // base64 of the .xlsx; 5 MB of text is about 3.7 MB of file.
    content: { type: 'string', minLength: 1, maxLength: 5 * 1024 * 1024 },
    overwrite: { type: 'boolean', default: false, description: 'A row whose label or value is taken updates that item instead of failing.' },
  },
  additionalProperties: false,
};

const dictionaryIdQuery = {
  type: 'object',
  required: ['dictionaryId'],
  properties: { dictionaryId: { $ref: 'common.json#/definitions/id' } },
};

export default async function dictionaryRoutes(fastify: FastifyInstance) {
  registerResource<Dictionary>(fastify, {
    path: 'dictionary',
    tag: 'bdt',
    module: MODULE,
    audit: { object: 'dictionary' },
    entity: 'entities/dictionary.json',
    hospitalScoped: false,
    regionWide: true,
    notFound: 'BDT104',
    list: {
      from: 'dictionary d',
      select: DICT_SELECT,
      columns: { id: 'd.id', name: 'd.name', code: 'd.code', status: 'd.status', builtin: 'd.builtin', createdAt: 'd.created_at', updatedAt: 'd.updated_at' },
      filters: { name: 'like', code: 'like', status: 'eq', builtin: 'eq' },
      defaultSort: 'd.builtin DESC, d.code',
    },
    async get(q, id) {
      const { rows } = await q.query<Dictionary>(`SELECT ${DICT_SELECT} FROM dictionary d WHERE d.id = $1`, [id]);
      return rows[0];
    },
    async save(q, d) {
      const target = saveTarget(await dictionaryConflicts(q, d), d);
      const values = [d.name, d.code, d.status ?? 1, d.remarks ?? null];
      return uniqueOr(async () => {
        if (target) {
          await q.query('UPDATE dictionary SET name = $2, code = $3, status = $4, remarks = $5, updated_at = now() WHERE id = $1', [target, ...values]);
          return target;
        }
        const { rows } = await q.query<{ id: number }>('INSERT INTO dictionary (name, code, status, remarks) VALUES ($1, $2, $3, $4) RETURNING id', values);
        return rows[0].id;
      }, { dictionary_code_key: 'BDT201', dictionary_name_key: 'BDT202' });
    },
    async remove(q, id) {
      const { rows } = await q.query<{ builtin: boolean }>('SELECT builtin FROM dictionary WHERE id = $1', [id]);
      if (rows[0]?.builtin) throw new AppError('BDT205');
      // Its items go with it (ON DELETE CASCADE); the client said so before asking.
      await q.query('DELETE FROM dictionary WHERE id = $1', [id]);
    },
    optionParams: { code: common('text32') },
    /**
     * Without `code`: the dictionaries (the item screen's choice). With `code`: that
     * dictionary's enabled items by sort, which is what a form's select offers (with
     * `builtin`, which items have texts per language); none while the dictionary itself
     * is disabled.
     */
    async options(q, query) {
      if (!query.code) {
        const { rows } = await q.query<{ value: number; label: string }>('SELECT id AS value, name AS label FROM dictionary ORDER BY builtin DESC, code');
        return rows;
      }
      const dict = await q.query<{ status: number }>('SELECT status FROM dictionary WHERE code = $1', [query.code]);
      if (!dict.rowCount) throw new AppError('BDT104');
      // builtin: the client shows a built-in item in the user's language, an added one as stored.
      const { rows } = await q.query<{ value: string; label: string; builtin: boolean }>(
        `SELECT i.value, i.label, i.builtin FROM dictionary_item i JOIN dictionary d ON d.id = i.dictionary_id
          WHERE d.code = $1 AND d.status = 1 AND i.status = 1 ORDER BY i.sort, i.id`,
        [query.code],
      );
      return rows;
    },
  });

  registerResource<DictionaryItem>(fastify, {
    path: 'dictionary/item',
    tag: 'bdt',
    module: MODULE,
    audit: { object: 'dictionaryItem' },
    entity: 'entities/dictionaryItem.json',
    hospitalScoped: false,
    regionWide: true,
    notFound: 'BDT104',
    list: {
      from: ITEM_FROM,
      select: ITEM_SELECT,
      columns: {
        id: 'i.id', dictionaryId: 'i.dictionary_id', parentId: 'i.parent_id', label: 'i.label', labelCode: 'i.label_code',
        value: 'i.value', sort: 'i.sort', status: 'i.status', createdAt: 'i.created_at',
      },
      filters: { dictionaryId: 'eq', parentId: 'eq', label: 'like', labelCode: 'like', value: 'like', status: 'eq' },
      defaultSort: 'i.dictionary_id, i.sort, i.id',
    },
    async get(q, id) {
      const { rows } = await q.query<DictionaryItem>(`SELECT ${ITEM_SELECT} FROM ${ITEM_FROM} WHERE i.id = $1`, [id]);
      return rows[0];
    },
    async save(q, item) {
      if (!(await dictionaryExists(q, item.dictionaryId))) throw new AppError('BDT104');
      const target = saveTarget(await itemConflicts(q, item), item);
      return writeItem(q, item, target);
    },
    async remove(q, id) {
      const { rows } = await q.query<{ builtin: boolean; children: boolean }>(
        'SELECT builtin, EXISTS (SELECT 1 FROM dictionary_item c WHERE c.parent_id = i.id) AS children FROM dictionary_item i WHERE i.id = $1',
        [id],
      );
      if (rows[0]?.builtin) throw new AppError('BDT205');
      if (rows[0]?.children) throw new AppError('BDT206');
      await q.query('DELETE FROM dictionary_item WHERE id = $1', [id]);
    },
    optionParams: { dictionaryId: common('id') },
    /** The items of one dictionary by id (a parent item's choice); none without a dictionary. */
    async options(q, query) {
      if (!query.dictionaryId) return [];
      const { rows } = await q.query<{ value: number; label: string }>(
        'SELECT id AS value, label FROM dictionary_item WHERE dictionary_id = $1 ORDER BY sort, id',
        [query.dictionaryId],
      );
      return rows;
    },
  });

  const fileRoute = (summary: string, action: 'import' | 'export', querystring?: object, audit: AuditDeclaration = 'none') => ({
    config: { permission: `${MODULE}:${action}`, audit },
    schema: { tags: ['bdt'], summary, ...(querystring ? { querystring } : {}) },
  });

  fastify.get('/dictionary/item/template', fileRoute('The empty import template (.xlsx)', 'import'), async (request, reply) =>
    sendXlsx(reply, `${t(request, 'entity.dictionaryItem.import.templateFile')}.xlsx`, await workbook(request.lang, [])),
  );

  fastify.get<{ Querystring: { dictionaryId: number } }>(
    '/dictionary/item/export',
    fileRoute('A dictionary’s items as .xlsx, in the import template’s columns', 'export', dictionaryIdQuery, { action: 'export', object: 'dictionaryItem', id: 'query.dictionaryId' }),
    async (request, reply) => {
      const dict = await dictionaryExists(fastify.db, request.query.dictionaryId);
      if (!dict) throw new AppError('BDT104');
      const { rows } = await fastify.db.query<SheetRow>(
        `SELECT i.label, i.label_code AS "labelCode", i.value, i.sort::text AS sort, i.status::text AS status, i.remarks, p.value AS "parentValue"
           FROM ${ITEM_FROM} WHERE i.dictionary_id = $1 ORDER BY i.sort, i.id`,
        [request.query.dictionaryId],
      );
      const clean = rows.map((r) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== null)) as SheetRow);
      return sendXlsx(reply, `${dict.code}.xlsx`, await workbook(request.lang, clean));
    },
  );

  // Rows are checked by the entity schema with the server's own validator (the one every save body goes through).
  type RowValidator = ((data: unknown) => boolean) & { errors?: unknown[] | null };
  let validateItem: RowValidator | undefined;
  const itemValidator = (): RowValidator => {
    // Set up by fastify once routes are built, so asked for at the first import, not at registration.
    const compile = fastify.validatorCompiler;
    if (!compile) throw new Error('fastify has no validator compiler yet');
    validateItem ??= compile({
      schema: { $ref: 'entities/dictionaryItem.json' },
      method: 'POST',
      url: '/dictionary/item/import',
      httpPart: 'body',
    }) as unknown as RowValidator;
    return validateItem;
  };

  fastify.post<{ Body: { dictionaryId: number; fileName?: string; content: string; overwrite: boolean } }>(
    '/dictionary/item/import',
    {
      config: { permission: `${MODULE}:import`, regionScope: true, audit: { action: 'upload', object: 'dictionaryItem', id: 'body.dictionaryId' } },
      bodyLimit: 6 * 1024 * 1024,
      schema: {
        tags: ['bdt'],
        summary: 'Import items from the .xlsx template (base64): good rows are stored together; failed rows are reported and kept as a file',
        body: importBody,
        response: replies(
          {
            type: 'object',
            required: ['imported', 'failed'],
            properties: {
              imported: { type: 'integer' },
              failed: { type: 'array', items: { type: 'object', properties: { row: { type: 'integer' }, reason: { type: 'string' } } } },
              failedFile: { type: 'string' },
            },
          },
          [400, 401, 403, 404, 413, 422],
        ),
      },
    },
    async (request) => {
      const { dictionaryId, overwrite } = request.body;
      if (!(await dictionaryExists(fastify.db, dictionaryId))) throw new AppError('BDT104');
      const sheet = await readSheet(Buffer.from(request.body.content, 'base64'));
      const validate = itemValidator();
      const failed: Array<{ row: number; reason: string; cells: SheetRow }> = [];
      const fail = (row: { row: number; cells: SheetRow }, err: unknown) => failed.push({ ...row, reason: reasonText(request, err) });

      // 1. Each row alone: the entity schema, and no label or value twice in the file.
      const seen = { label: new Set<string>(), value: new Set<string>() };
      const good: Array<{ row: number; cells: SheetRow; item: DictionaryItem }> = [];
      for (const r of sheet) {
        const { parentValue: _parent, ...fields } = r.cells;
        const item = { ...fields, dictionaryId } as Record<string, unknown>;
        if (!validate(item)) {
          fail(r, validationFailure({ validation: validate.errors, validationContext: 'body' } as unknown as FastifyError));
          continue;
        }
        const it = item as unknown as DictionaryItem;
        if (seen.label.has(it.label)) fail(r, new AppError('BDT203'));
        else if (seen.value.has(it.value)) fail(r, new AppError('BDT204'));
        else {
          seen.label.add(it.label);
          seen.value.add(it.value);
          good.push({ ...r, item: it });
        }
      }

      // 2. Against the dictionary, in one transaction; a parent may be an earlier or a later row.
      const imported = await fastify.db.tx(async (q) => {
        let stored = 0;
        let pending = good;
        while (pending.length) {
          const next: typeof pending = [];
          for (const r of pending) {
            const parentValue = r.cells.parentValue;
            let parentId: number | undefined;
            if (parentValue) {
              const { rows } = await q.query<{ id: number }>('SELECT id FROM dictionary_item WHERE dictionary_id = $1 AND value = $2', [dictionaryId, parentValue]);
              if (!rows[0]) {
                next.push(r);
                continue;
              }
              parentId = rows[0].id;
            }
            // A savepoint per row: a refused row (even one the database refuses) leaves the others standing.
            await q.query('SAVEPOINT import_row');
            try {
              const item = { ...r.item, parentId };
              await writeItem(q, item, saveTarget(await itemConflicts(q, item), { overwrite }));
              await q.query('RELEASE SAVEPOINT import_row');
              stored += 1;
            } catch (e) {
              await q.query('ROLLBACK TO SAVEPOINT import_row');
              fail(r, e);
            }
          }
          // Rows whose parent is neither stored nor coming fail; otherwise go round again.
          if (next.length === pending.length) {
            for (const r of next) fail(r, parentError());
            break;
          }
          pending = next;
        }
        return stored;
      });

      failed.sort((a, b) => a.row - b.row);
      let failedFile: string | undefined;
      if (failed.length) {
        failedFile = crypto.randomBytes(16).toString('hex');
        const bytes = await workbook(request.lang, failed.map((f) => f.cells), failed.map((f) => f.reason));
        await fastify.storage.put(`${FAILED_PREFIX}${failedFile}.xlsx`, bytes);
      }
      return ok({ imported, failed: failed.map(({ row, reason }) => ({ row, reason })), ...(failedFile ? { failedFile } : {}) });
    },
  );

  fastify.get<{ Params: { token: string } }>(
    '/dictionary/item/import/failed/:token',
    {
      config: { permission: `${MODULE}:import`, audit: 'none' },
      schema: {
        tags: ['bdt'],
        summary: 'The failed rows of an import (.xlsx, the template’s columns and the reason)',
        params: { type: 'object', required: ['token'], properties: { token: { type: 'string', pattern: TOKEN.source } } },
      },
    },
    async (request, reply) => {
      const key = `${FAILED_PREFIX}${request.params.token}.xlsx`;
      if ((await fastify.storage.stat(key)) === undefined) throw new AppError('BDT104');
      const bytes = await streamToBuffer(await fastify.storage.get(key));
      return sendXlsx(reply, `${t(request, 'entity.dictionaryItem.import.failedFile')}.xlsx`, bytes);
    },
  );
}

async function streamToBuffer(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return Buffer.concat(chunks);
}
