/**
 * The pieces of work on a report, each kind with the report's columns of who did it and
 * when: what the workload statistics count (server/stats/sources.ts reportWork) and what
 * the report list's drill-through filter narrows to (read.ts withWorkFilter), one table
 * for both so the list's total stays the figure clicked.
 */
export const REPORT_WORK = [
  { work: 'write', doctor: 'writer_id', name: 'writer_name', at: 'first_trial_time' },
  { work: 'review', doctor: 'reviewer_id', name: 'reviewer_name', at: 'retrial_time' },
  { work: 'recheck', doctor: 'recheck_doctor_id', name: 'recheck_doctor_name', at: 'recheck_time' },
] as const;
