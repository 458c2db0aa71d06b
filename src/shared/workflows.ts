/**
 * The declared workflows (config/workflows/<name>.json) by name, read once for both
 * sides: the server executes and checks them against schemas/reportWorkflow.json, the
 * client reads which actions need a reason and its limits. Pure.
 */
import report from '../../config/workflows/report.json';
import type { ReportWorkflow } from './generated/reportWorkflow';

export const WORKFLOWS: Readonly<Record<string, ReportWorkflow>> = Object.freeze({ report: report as unknown as ReportWorkflow });
