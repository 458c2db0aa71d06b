/** Registering exams through the API, as the DICOM tests' fixtures do. */
import type { FastifyInstance } from "fastify";
import { FROM, LIST_SELECT } from "../../server/exam/domain";
import { authed } from "./auth";

/** Saves a new exam as the user of `token` (a walk-in: it is in the worklist at once); the exam as the API answers it. */
export async function registerExam(
  app: FastifyInstance,
  token: string,
  payload: Record<string, unknown>,
): Promise<Record<string, any>> {
  const r = await app.inject({
    method: "POST",
    url: "/api/ris/v1/exam/save",
    headers: authed(token),
    payload,
  });
  expect(r.json().status).toBe("0");
  return r.json().data;
}

/** The demo region's org ids by code, and each hospital's first exam item with an exam part (what a test registers with). */
export async function demoOrgsAndItems(db: { query<R>(sql: string, params?: unknown[]): Promise<{ rows: R[] }> }): Promise<{
  orgs: Record<string, number>;
  item: Record<string, { id: number; organ_id: number }>;
}> {
  const orgs = Object.fromEntries((await db.query<{ code: string; id: number }>("SELECT code, id FROM org")).rows.map((r) => [r.code, r.id]));
  const { rows } = await db.query<{ code: string; id: number; organ_id: number }>(
    `SELECT DISTINCT ON (o.code) o.code, i.id, i.organ_id FROM exam_item i JOIN org o ON o.id = i.hospital_id WHERE i.organ_id IS NOT NULL ORDER BY o.code, i.id`,
  );
  return { orgs, item: Object.fromEntries(rows.map((r) => [r.code, r])) };
}

/** A new exam registered as the user of `token` and marked examined (its report may be written). */
export async function examinedExam(
  app: FastifyInstance,
  db: { query(sql: string, params?: unknown[]): Promise<unknown> },
  token: string,
  payload: Record<string, unknown>,
): Promise<number> {
  const { id } = await registerExam(app, token, payload);
  await db.query("UPDATE exam SET exam_state = 2, exam_time = now() WHERE id = $1", [id]);
  return id as number;
}

/** An exam's state and image figures as the exam list projects them (its counts are read from the matched studies). */
export async function examImages(
  db: { query<R>(sql: string, params?: unknown[]): Promise<{ rows: R[] }> },
  id: number,
): Promise<{ exam_state: number; image_status: number; series_count: number; instance_count: number }> {
  const { rows } = await db.query<{ exam_state: number; image_status: number; series_count: number; instance_count: number }>(
    `SELECT x."examState" AS exam_state, x."imageStatus" AS image_status, x."seriesCount" AS series_count, x."instanceCount" AS instance_count
       FROM (SELECT ${LIST_SELECT} FROM ${FROM} WHERE e.id = $1) x`,
    [id],
  );
  return rows[0];
}
