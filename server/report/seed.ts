/**
 * Demo reports and templates (mock/reports.ts) for the demo seed, inside its
 * transaction: a report row for examined demo exams in a spread of workflow states,
 * the same state copied to exam.report_state / exam.sent_to_superior (as the engine
 * keeps them), the operation-record entries that led there, the critical-value
 * notices of the reports that carry one, and the demo templates.
 * Bulk statements, so the first start stays fast.
 */
import type { Queryable } from '../db';
import { demoReports, DEMO_PRIVATE_TEMPLATES, DEMO_PUBLIC_TEMPLATES } from '../../mock/reports';

const MINUTE = 60_000;

/** Multi-row INSERT of `rows` (same keys) in chunks of 100. */
async function insertRows(q: Queryable, table: string, rows: Array<Record<string, unknown>>): Promise<void> {
  if (!rows.length) return;
  const names = Object.keys(rows[0]);
  for (let start = 0; start < rows.length; start += 100) {
    const params: unknown[] = [];
    const values = rows.slice(start, start + 100).map((row) => `(${names.map((n) => `$${params.push(row[n])}`).join(', ')})`);
    await q.query(`INSERT INTO ${table} (${names.join(', ')}) VALUES ${values.join(', ')}`, params);
  }
}

export async function insertDemoReports(q: Queryable): Promise<void> {
  const orgs = new Map((await q.query<{ code: string; id: number; name: string }>('SELECT code, id, name FROM org')).rows.map((r) => [r.code, r]));
  const users = new Map((await q.query<{ mobile: string; id: number; name: string }>('SELECT mobile, id, name FROM app_user')).rows.map((r) => [r.mobile, r]));
  const { rows: exams } = await q.query<{ id: number; hospital_id: number; hospital: string; exam_code: string; modality: string; his_dept_name: string | null; exam_time: Date }>(
    `SELECT e.id, e.hospital_id, o.code AS hospital, e.exam_code, e.modality, e.his_dept_name, e.exam_time
       FROM exam e JOIN org o ON o.id = e.hospital_id
      WHERE e.exam_state = 2 AND NOT e.hidden ORDER BY e.exam_time DESC, e.id DESC`,
  );
  const plans = demoReports(exams.map((e) => ({ hospital: e.hospital, modality: e.modality ?? 'DX', hisDeptName: e.his_dept_name })));
  const central = orgs.get('CENTRAL')!;
  const reports: Array<Record<string, unknown>> = [];
  const logs: Array<Record<string, unknown>> = [];
  exams.forEach((exam, i) => {
    const plan = plans[i];
    if (!plan) return;
    const hospital = [...orgs.values()].find((o) => o.id === exam.hospital_id)!;
    const writer = plan.writer ? users.get(plan.writer) : undefined;
    const reviewer = plan.reviewer ? users.get(plan.reviewer) : undefined;
    // Each step a few minutes after the exam and after the one before.
    const at = (k: number) => new Date(exam.exam_time.getTime() + (k + 1) * 7 * MINUTE);
    const actors = plan.steps.map((s) => (['reviewPass', 'reviewReject', 'doubleReviewReject'].includes(s.type) ? reviewer : writer) ?? users.get('13800000004')!);
    let from = -1;
    plan.steps.forEach((step, k) => {
      const actor = actors[k];
      logs.push({
        exam_id: exam.id,
        hospital_id: exam.hospital_id,
        action: step.type,
        user_id: actor.id,
        user_name: actor.name,
        created_at: at(k),
        detail: JSON.stringify({ examCode: exam.exam_code, reportAction: step.action, reportFrom: from, reportTo: step.to, hospitalName: hospital.name, ...(step.reason ? { reason: step.reason } : {}) }),
      });
      from = step.to;
    });
    const last = plan.steps.length - 1;
    if (plan.crisis) {
      // Recorded with the last step, as the engine logs a critical value with the action that reported it.
      const step = plan.steps[last];
      logs.push({
        exam_id: exam.id,
        hospital_id: exam.hospital_id,
        action: 'criticalValue',
        user_id: actors[last].id,
        user_name: actors[last].name,
        created_at: at(last),
        detail: JSON.stringify({ examCode: exam.exam_code, reportAction: step.action, reportFrom: plan.steps[last - 1]?.to ?? -1, reportTo: step.to, hospitalName: hospital.name, content: plan.crisis.description }),
      });
    }
    const submittedAt = plan.steps.findIndex((s) => s.type === 'submit' || s.type === 'submitSuperiorAudit');
    const reviewedAt = plan.steps.findIndex((s) => s.type === 'reviewPass' || s.type === 'reviewReject');
    reports.push({
      id: exam.id,
      report_state: plan.state,
      version: plan.steps.length,
      see: plan.see ?? null,
      diagnosis: plan.diagnosis ?? null,
      positive: plan.positive ?? null,
      crisis: !!plan.crisis,
      crisis_recorder: plan.crisis?.recorder ?? null,
      crisis_record_time: plan.crisis ? at(last) : null,
      crisis_description: plan.crisis?.description ?? null,
      writer_id: submittedAt >= 0 ? writer?.id ?? null : null,
      writer_name: submittedAt >= 0 ? writer?.name ?? null : null,
      first_trial_time: submittedAt >= 0 ? at(submittedAt) : null,
      first_trial_hospital_name: submittedAt >= 0 ? hospital.name : null,
      reviewer_id: reviewedAt >= 0 ? reviewer?.id ?? null : null,
      reviewer_name: reviewedAt >= 0 ? reviewer?.name ?? null : null,
      retrial_time: reviewedAt >= 0 ? at(reviewedAt) : null,
      retrial_back_reason: plan.steps.find((s) => s.type === 'reviewReject' || s.type === 'doubleReviewReject')?.reason ?? null,
      sent_to_superior: plan.sent,
      superior_hospital_id: plan.sent || plan.state === 8 ? central.id : null,
      superior_send_time: plan.sent || plan.state === 8 ? at(0) : null,
      print_state: plan.printed ? 1 : 0,
      print_number: plan.printed,
      last_operator_id: actors[last].id,
      last_operator_name: actors[last].name,
      last_operate_time: at(last),
      created_at: at(0),
      updated_at: at(last),
    });
  });
  await insertRows(q, 'report', reports);
  await insertRows(q, 'exam_log', logs);
  // The exam keeps the copies the exam list and the image rules read.
  await q.query('UPDATE exam e SET report_state = r.report_state, sent_to_superior = r.sent_to_superior FROM report r WHERE r.id = e.id');
  // Each critical value waits for its requesting department, as migration 0013 made the notices of the reports before it.
  await q.query(
    `INSERT INTO report_crisis (report_id, hospital_id, department_id, department_name, description, recorder, record_time, reported_by, reported_by_name, reported_at)
     SELECT r.id, e.hospital_id, d.id, e.his_dept_name, r.crisis_description, r.crisis_recorder, r.crisis_record_time, r.last_operator_id,
            coalesce(r.last_operator_name, ''), coalesce(r.crisis_record_time, r.updated_at)
       FROM report r JOIN exam e ON e.id = r.id
       LEFT JOIN department d ON d.hospital_id = e.hospital_id AND d.name = e.his_dept_name
      WHERE r.crisis AND r.crisis_description IS NOT NULL`,
  );

  const templates: Array<Record<string, unknown>> = [];
  for (const org of orgs.values()) {
    DEMO_PUBLIC_TEMPLATES.forEach((t, sort) =>
      templates.push({ scope: 'public', hospital_id: org.id, owner_id: null, class_name1: t.className1, class_name2: t.className2, template_name: t.templateName, see: t.see, diagnosis: t.diagnosis, sort }),
    );
  }
  DEMO_PRIVATE_TEMPLATES.forEach((t, sort) =>
    templates.push({ scope: 'private', hospital_id: null, owner_id: users.get(t.owner)!.id, class_name1: t.className1, class_name2: t.className2, template_name: t.templateName, see: t.see, diagnosis: t.diagnosis, sort }),
  );
  await insertRows(q, 'report_template', templates);
}
