/**
 * The declared workflows (config/workflows/<name>.json) by name, read once for both
 * sides: the server executes them with its one engine (server/workflow/) and checks
 * them against schemas/workflow.json; the client reads which actions need a reason and
 * its limits. Pure.
 */
import exam from '../../config/workflows/exam.json';
import report from '../../config/workflows/report.json';
import consultation from '../../config/workflows/consultation.json';
import consultationReport from '../../config/workflows/consultationReport.json';
import type { Workflow } from './generated/workflow';

export const WORKFLOWS: Readonly<Record<string, Workflow>> = Object.freeze({
  report: report as unknown as Workflow,
  exam: exam as unknown as Workflow,
  consultation: consultation as unknown as Workflow,
  consultationReport: consultationReport as unknown as Workflow,
});
