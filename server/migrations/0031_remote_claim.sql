-- The remote centre's claims (issue #19 item 3): a central doctor claims a report sent
-- to their hospital so the others' to-write and to-review tabs leave it out. A claim
-- lapses at read time (config/workflows/report.json claimSeconds, judged in SQL against
-- remote_claimed_at), so every instance sees the same claims without a job; the
-- turnaround limits (migration 0032) release the claims of overdue reports by setting
-- both columns to NULL. remote_approved: the central hospital approved the report, so
-- from then on both hospitals may review or recheck it (spec section 4, editing after
-- approval); remote_recalled: the central hospital recalled the report it had
-- approved (REPORT603 answers the primary hospital until it is approved again).

ALTER TABLE report ADD COLUMN IF NOT EXISTS remote_claimed_by bigint, ADD COLUMN IF NOT EXISTS remote_claimed_at timestamptz;
ALTER TABLE report ADD COLUMN IF NOT EXISTS remote_approved boolean NOT NULL DEFAULT false,
  ADD COLUMN IF NOT EXISTS remote_recalled boolean NOT NULL DEFAULT false;
