-- The central worklist's work tabs (report lists of model remote, to write and to review):
-- the page is chosen and the total counted on the key and the filtered and sorted columns
-- (server/lib/list.ts, key), which these two indexes hold for the reports waiting at a
-- centre (sent up, not approved: a few hundred or thousand, however long the history), so
-- that count is two index-only walks joined on the id, not a visit of each exam and report
-- row. The lists name the report's own state as well (server/report/read.ts, listSpec), which implies
-- the report index's predicate. Measured by bench/suites/remote.ts (README, Benchmarks).
CREATE INDEX IF NOT EXISTS report_remote_work_idx ON report (id)
  INCLUDE (superior_hospital_id, due_at, remote_claimed_by, remote_claimed_at, report_state)
  WHERE sent_to_superior AND report_state <> 4;
CREATE INDEX IF NOT EXISTS exam_remote_work_idx ON exam (id)
  INCLUDE (hospital_id, exam_state, hidden, report_state, created_at)
  WHERE sent_to_superior AND report_state <> 4;
