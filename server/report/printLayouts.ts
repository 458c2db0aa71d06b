/**
 * Report print layouts (spec section 3 "Report print layout"): the files of
 * config/print-layouts/ (one layout per file, named by it, and mapping.json: hospital
 * code → layout name), checked when the server starts as the workflow table is;
 * copied once into the database (seedPrintLayouts, under the startup lock), which is
 * the truth afterwards; and the store the /qualityControl calls and the print sheet
 * use: layouts, the hospital → layout mapping, within the caller's data scope.
 * Touches print_layout, print_layout_hospital and app_meta; reads org.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Queryable } from '../db';
import type { AuthContext } from '../identity/sessions';
import { requireHospital, type DataScope } from '../identity/scope';
import { AppError } from '../lib/errors';
import type { ListSpec } from '../lib/list';
import { dropNulls, uniqueOr } from '../lib/resource';
import { schemaCheck } from '../lib/ajv';
import { ROOT } from '../paths';
import type { PrintLayout } from '../../src/shared/generated/entities/printLayout';

export type { PrintLayout };

export const LAYOUTS_DIR = path.join(ROOT, 'config', 'print-layouts');
const MAPPING_FILE = 'mapping.json';
const SEEDED_KEY = 'print_layouts_seeded';

/** What a layout row keeps as `definition`: the entity without its key, id, mapping and read-only fields. */
export type LayoutDefinition = Omit<PrintLayout, 'id' | 'name' | 'hospitalIds' | 'hospitalNames' | 'updatedAt'>;
const NOT_DEFINITION = new Set(['id', 'name', 'hospitalIds', 'hospitalNames', 'updatedAt']);

export function definitionOf(layout: PrintLayout): LayoutDefinition {
  return Object.fromEntries(Object.entries(layout).filter(([k, v]) => !NOT_DEFINITION.has(k) && v !== undefined)) as LayoutDefinition;
}

/** The first item a layout lists twice (the schema cannot say "unique by field"), or undefined. */
export function repeatedItem(layout: Pick<PrintLayout, 'fields'>): number | undefined {
  const seen = new Set<string>();
  const at = layout.fields.findIndex((f) => (seen.has(f.field) ? true : (seen.add(f.field), false)));
  return at < 0 ? undefined : at;
}

/** Validates layout files as the API's bodies are (defaults filled), without Fastify. */
function validateLayout(data: unknown): string[] {
  const validate = schemaCheck('entities/printLayout.json');
  return validate(data) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
}

export interface LayoutFiles {
  layouts: PrintLayout[];
  /** Hospital code → layout name. */
  mapping: Record<string, string>;
}

/**
 * Reads and checks config/print-layouts/: every layout follows entities/printLayout.json
 * (with no id and no hospitals: mapping.json says those), is named as its file, lists
 * an item once; a default layout exists; mapping.json maps hospital codes to layouts
 * that exist. Throws one Error naming every problem.
 */
export function readLayoutFiles(dir = LAYOUTS_DIR): LayoutFiles {
  const problems: string[] = [];
  const layouts: PrintLayout[] = [];
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.json') && f !== MAPPING_FILE).sort()) {
    const layout = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as PrintLayout;
    const at = `${file}:`;
    for (const p of validateLayout(layout)) problems.push(`${at} ${p}`);
    for (const k of ['id', 'hospitalIds', 'hospitalNames', 'updatedAt'] as const) if (layout[k] !== undefined) problems.push(`${at} ${k} does not belong in a layout file`);
    if (layout.name !== path.basename(file, '.json')) problems.push(`${at} name ${layout.name} is not the file's name`);
    const repeated = Array.isArray(layout.fields) ? repeatedItem(layout) : undefined;
    if (repeated !== undefined) problems.push(`${at} item ${layout.fields[repeated].field} is listed twice`);
    layouts.push(layout);
  }
  const names = new Set(layouts.map((l) => l.name));
  if (!names.has('default')) problems.push('no default.json');
  const mappingFile = JSON.parse(fs.readFileSync(path.join(dir, MAPPING_FILE), 'utf8')) as { hospitals?: Record<string, unknown> };
  const mapping: Record<string, string> = {};
  for (const [code, name] of Object.entries(mappingFile.hospitals ?? {})) {
    if (!/^[A-Za-z0-9_]+$/.test(code)) problems.push(`${MAPPING_FILE}: ${code} is not a hospital code`);
    if (typeof name !== 'string' || !names.has(name)) problems.push(`${MAPPING_FILE}: ${code} names no layout file (${String(name)})`);
    else mapping[code] = name;
  }
  if (problems.length) throw new Error(`config/print-layouts:\n  ${problems.join('\n  ')}`);
  return { layouts, mapping };
}

/**
 * First start (or the first start with this feature): the layout files into the
 * database and the mapping for the hospitals that exist now. Once only: afterwards the
 * database is what /qualityControl edits, and a file changed later does not overwrite it.
 */
export async function seedPrintLayouts(q: Queryable, files: LayoutFiles = readLayoutFiles()): Promise<boolean> {
  const done = await q.query('SELECT 1 FROM app_meta WHERE key = $1', [SEEDED_KEY]);
  if (done.rowCount) return false;
  for (const layout of files.layouts) {
    await q.query('INSERT INTO print_layout (name, definition) VALUES ($1, $2::jsonb) ON CONFLICT (name) DO NOTHING', [layout.name, JSON.stringify(definitionOf(layout))]);
  }
  const codes = Object.keys(files.mapping);
  await q.query(
    `INSERT INTO print_layout_hospital (hospital_id, layout_id)
     SELECT o.id, l.id FROM unnest($1::text[], $2::text[]) AS m(code, name) JOIN org o ON o.code = m.code JOIN print_layout l ON l.name = m.name
     ON CONFLICT (hospital_id) DO NOTHING`,
    [codes, codes.map((c) => files.mapping[c])],
  );
  await q.query('INSERT INTO app_meta (key, value) VALUES ($1, to_jsonb(now()::text))', [SEEDED_KEY]);
  return true;
}

/** The hospitals a caller's scope restricts to, or null for all of them. */
const scopeIds = (scope: DataScope): number[] | null => (scope.all ? null : scope.hospitalIds);

/** Layouts for the list, with the names of every hospital printing with each (so a shared layout shows as shared). */
export const LAYOUT_LIST: ListSpec = {
  from: 'print_layout l',
  select: `l.id, l.name, l.definition ->> 'title' AS title, l.definition ->> 'hospitalName' AS "hospitalName",
    (l.definition ->> 'firstTrialSignature')::boolean AS "firstTrialSignature", (l.definition ->> 'retrialSignature')::boolean AS "retrialSignature",
    (SELECT string_agg(o.name, '、' ORDER BY o.id) FROM print_layout_hospital m JOIN org o ON o.id = m.hospital_id WHERE m.layout_id = l.id) AS "hospitalNames",
    l.updated_at AS "updatedAt"`,
  columns: { name: 'l.name', title: "l.definition ->> 'title'", hospitalName: "l.definition ->> 'hospitalName'", updatedAt: 'l.updated_at' },
  filters: { name: 'like', title: 'like', hospitalName: 'like' },
  defaultSort: 'l.name',
};

interface LayoutRow {
  id: number;
  name: string;
  definition: LayoutDefinition;
  updated_at: Date;
  hospital_ids: number[];
  hospital_names: string | null;
}

/** One layout as entities/printLayout.json has it: hospitalIds those of the caller's scope printing with it (the ones they may change), hospitalNames all. */
export async function getLayout(q: Queryable, id: number, me: AuthContext): Promise<PrintLayout | undefined> {
  const { rows } = await q.query<LayoutRow>(
    `SELECT l.id, l.name, l.definition, l.updated_at,
            coalesce((SELECT array_agg(m.hospital_id ORDER BY m.hospital_id) FROM print_layout_hospital m
                       WHERE m.layout_id = l.id AND ($1::int[] IS NULL OR m.hospital_id = ANY($1::int[]))), '{}') AS hospital_ids,
            (SELECT string_agg(o.name, '、' ORDER BY o.id) FROM print_layout_hospital m JOIN org o ON o.id = m.hospital_id WHERE m.layout_id = l.id) AS hospital_names
       FROM print_layout l WHERE l.id = $2`,
    [scopeIds(me.scope), id],
  );
  const r = rows[0];
  if (!r) return undefined;
  return dropNulls({ ...r.definition, id: r.id, name: r.name, hospitalIds: r.hospital_ids, hospitalNames: r.hospital_names, updatedAt: r.updated_at.toISOString() }) as PrintLayout;
}

/** JSON with sorted keys: jsonb keeps its own key order, so stored and sent layouts compare this way. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

const invalid = (field: string, detailKey: string) => new AppError('UAA421', { detailKey, field }, { field });

/**
 * Creates or updates a layout and sets its hospitals. A caller limited to some
 * hospitals maps and unmaps only those (the others mapped to it stay), and changes
 * what a layout prints only while no hospital outside the scope prints with it
 * (REPORT302): choosing a shared layout for one's own hospital is fine, rewriting it
 * for everyone is the region's.
 */
export async function saveLayout(q: Queryable, body: PrintLayout, me: AuthContext): Promise<number> {
  const repeated = repeatedItem(body);
  if (repeated !== undefined) throw invalid(`fields.${repeated}.field`, 'validation.uniqueItems');
  const wanted = body.hospitalIds ?? [];
  for (const h of wanted) requireHospital(me.scope, h);
  const known = await q.query<{ id: number }>('SELECT id FROM org WHERE id = ANY($1::int[])', [wanted]);
  if (known.rowCount !== wanted.length) throw invalid('hospitalIds', 'validation.invalid');
  const definition = definitionOf(body);
  let id = body.id;
  if (id) {
    const { rows } = await q.query<{ name: string; definition: LayoutDefinition; outside: number }>(
      `SELECT l.name, l.definition,
              (SELECT count(*)::int FROM print_layout_hospital m WHERE m.layout_id = l.id AND NOT ($2::int[] IS NULL OR m.hospital_id = ANY($2::int[]))) AS outside
         FROM print_layout l WHERE l.id = $1 FOR UPDATE`,
      [id, scopeIds(me.scope)],
    );
    const changed = rows[0].name !== body.name || canonical(rows[0].definition) !== canonical(definition);
    if (changed && rows[0].outside > 0) throw new AppError('REPORT302');
    if (changed) {
      await uniqueOr(
        () => q.query('UPDATE print_layout SET name = $2, definition = $3::jsonb, updated_by = $4, updated_at = now() WHERE id = $1', [id, body.name, JSON.stringify(definition), me.userId]),
        { print_layout_name_key: 'REPORT204' },
      );
    }
  } else {
    const { rows } = await uniqueOr(
      () => q.query<{ id: number }>('INSERT INTO print_layout (name, definition, updated_by) VALUES ($1, $2::jsonb, $3) RETURNING id', [body.name, JSON.stringify(definition), me.userId]),
      { print_layout_name_key: 'REPORT204' },
    );
    id = rows[0].id;
  }
  // The caller's hospitals no longer listed lose the layout; those listed get it (moving from another layout).
  await q.query(
    'DELETE FROM print_layout_hospital WHERE layout_id = $1 AND ($2::int[] IS NULL OR hospital_id = ANY($2::int[])) AND NOT (hospital_id = ANY($3::int[]))',
    [id, scopeIds(me.scope), wanted],
  );
  await setHospitalsLayout(q, wanted, id);
  return id;
}

async function setHospitalsLayout(q: Queryable, hospitalIds: number[], layoutId: number): Promise<void> {
  await q.query(
    `INSERT INTO print_layout_hospital (hospital_id, layout_id) SELECT unnest($1::int[]), $2
     ON CONFLICT (hospital_id) DO UPDATE SET layout_id = excluded.layout_id, updated_at = now()
       WHERE print_layout_hospital.layout_id <> excluded.layout_id`,
    [hospitalIds, layoutId],
  );
}

/** A layout some hospital prints with stays (REPORT303): unmap it first. */
export async function removeLayout(q: Queryable, id: number): Promise<void> {
  const used = await q.query('SELECT 1 FROM print_layout_hospital WHERE layout_id = $1 LIMIT 1', [id]);
  if (used.rowCount) throw new AppError('REPORT303');
  await q.query('DELETE FROM print_layout WHERE id = $1', [id]);
}

export async function layoutOptions(q: Queryable): Promise<Array<{ value: number; label: string }>> {
  const { rows } = await q.query<{ value: number; label: string }>('SELECT id AS value, name AS label FROM print_layout ORDER BY name');
  return rows;
}

/** The hospitals of the caller's scope and the layout each prints with (none: absent). */
export async function mappingList(q: Queryable, me: AuthContext): Promise<Array<Record<string, unknown>>> {
  const { rows } = await q.query<Record<string, unknown>>(
    `SELECT o.id AS "hospitalId", o.code AS "hospitalCode", o.name AS "hospitalName", l.id AS "layoutId", l.name AS "layoutName"
       FROM org o LEFT JOIN print_layout_hospital m ON m.hospital_id = o.id LEFT JOIN print_layout l ON l.id = m.layout_id
      WHERE $1::int[] IS NULL OR o.id = ANY($1::int[]) ORDER BY o.id`,
    [scopeIds(me.scope)],
  );
  return rows.map(dropNulls);
}

/** Sets (or with null, removes) the layout of one hospital of the caller's scope. */
export async function saveMapping(q: Queryable, hospitalId: number, layoutId: number | null, me: AuthContext): Promise<void> {
  requireHospital(me.scope, hospitalId);
  const hospital = await q.query('SELECT 1 FROM org WHERE id = $1', [hospitalId]);
  if (!hospital.rowCount) throw new AppError('UCENTER101');
  if (layoutId === null) {
    await q.query('DELETE FROM print_layout_hospital WHERE hospital_id = $1', [hospitalId]);
    return;
  }
  const layout = await q.query('SELECT 1 FROM print_layout WHERE id = $1', [layoutId]);
  if (!layout.rowCount) throw invalid('layoutId', 'validation.invalid');
  await setHospitalsLayout(q, [hospitalId], layoutId);
}

/** The layout a hospital prints with; REPORT301 when it has none. */
export async function hospitalLayout(q: Queryable, hospitalId: number): Promise<PrintLayout> {
  const { rows } = await q.query<{ id: number; name: string; definition: LayoutDefinition }>(
    'SELECT l.id, l.name, l.definition FROM print_layout_hospital m JOIN print_layout l ON l.id = m.layout_id WHERE m.hospital_id = $1',
    [hospitalId],
  );
  if (!rows[0]) throw new AppError('REPORT301');
  return { ...rows[0].definition, id: rows[0].id, name: rows[0].name };
}
