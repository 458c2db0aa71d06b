-- An exam's series and image counts are read from its matched studies (the exam list's
-- projection, server/exam/domain.ts) instead of kept on the exam row: keeping them
-- wrote the exam at every instance received, and every UPDATE of exam, even of no row,
-- runs its statement triggers (statistics rollups, the remote worklist). On the embedded
-- database those cost more than indexing the instance itself.
ALTER TABLE exam DROP COLUMN IF EXISTS series_count;
ALTER TABLE exam DROP COLUMN IF EXISTS instance_count;
