/** /api/bdt/v1: base data. Departments of a hospital (code, name, shortcut). */
import type { FastifyInstance } from 'fastify';
import { AppError } from '../lib/errors';
import { registerResource, uniqueOr } from '../lib/resource';
import { requireHospital, scopeSql } from '../identity/scope';
import type { Department } from '../../src/shared/generated/entities/department';
import dictionaryRoutes from './dictionary';
import { common } from '../lib/schemas';


const DEPT_SELECT = `d.id, d.hospital_id AS "hospitalId", o.name AS "hospitalName", d.code, d.name, d.shortcut, d.created_at AS "createdAt"`;
const inScope = { hospitalColumn: 'd.hospital_id' };

export default async function bdtRoutes(fastify: FastifyInstance) {
  await fastify.register(dictionaryRoutes);
  registerResource<Department>(fastify, {
    path: 'department',
    tag: 'bdt',
    module: 'system.department',
    audit: { object: 'department' },
    entity: 'entities/department.json',
    notFound: 'BDT104',
    list: {
      from: 'department d JOIN org o ON o.id = d.hospital_id',
      select: DEPT_SELECT,
      columns: { id: 'd.id', hospitalId: 'd.hospital_id', code: 'd.code', name: 'd.name', shortcut: 'd.shortcut', createdAt: 'd.created_at' },
      filters: { hospitalId: 'eq', code: 'like', name: 'like', shortcut: 'like' },
      defaultSort: 'd.hospital_id, d.code',
      scope: inScope,
    },
    async get(q, id, me) {
      const params: unknown[] = [id];
      const { rows } = await q.query<Department>(
        `SELECT ${DEPT_SELECT} FROM department d JOIN org o ON o.id = d.hospital_id WHERE d.id = $1 AND ${scopeSql(me.scope, inScope, params)}`,
        params,
      );
      return rows[0];
    },
    async save(q, d, me) {
      requireHospital(me.scope, d.hospitalId);
      const values = [d.hospitalId, d.code, d.name, d.shortcut ?? null];
      return uniqueOr(async () => {
        if (d.id) {
          await q.query('UPDATE department SET hospital_id = $2, code = $3, name = $4, shortcut = $5, updated_at = now() WHERE id = $1', [d.id, ...values]);
          return d.id;
        }
        const { rows } = await q.query<{ id: number }>('INSERT INTO department (hospital_id, code, name, shortcut) VALUES ($1, $2, $3, $4) RETURNING id', values);
        return rows[0].id;
      }, { department_hospital_id_code_key: 'BDT101', department_hospital_id_name_key: 'BDT102' });
    },
    async remove(q, id) {
      // Members and devices keep their department; it goes only when nothing refers to it.
      const used = await q.query(
        'SELECT 1 FROM user_membership WHERE department_id = $1 UNION ALL SELECT 1 FROM device WHERE department_id = $1 LIMIT 1',
        [id],
      );
      if (used.rowCount) throw new AppError('BDT003');
      await q.query('DELETE FROM department WHERE id = $1', [id]);
    },
    optionParams: { hospitalId: common('id') },
    async options(q, query, me) {
      const params: unknown[] = [query.hospitalId ?? null];
      const { rows } = await q.query<{ value: number; label: string }>(
        `SELECT d.id AS value, d.name AS label FROM department d
          WHERE ($1::int IS NULL OR d.hospital_id = $1) AND ${scopeSql(me.scope, inScope, params)} ORDER BY d.code`,
        params,
      );
      return rows;
    },
  });
}
