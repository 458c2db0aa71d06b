-- The video room's chat is kept with the consultation (issue #20 item 6): a chat line is
-- one more kind of the room's events, in the same order as the viewer's, so the replay
-- (GET .../video/room/:id/events) holds what was said beside what was shown, and a late
-- joiner's welcome carries the recent lines. state: {"text": ..., "name": ...}.
ALTER TABLE video_sync_event DROP CONSTRAINT IF EXISTS video_sync_event_kind_check;
ALTER TABLE video_sync_event ADD CONSTRAINT video_sync_event_kind_check CHECK (kind IN ('view', 'annotations', 'presenter', 'chat'));
-- The welcome reads a room's last chat lines.
CREATE INDEX IF NOT EXISTS video_sync_event_chat_idx ON video_sync_event (meeting_id, id) WHERE kind = 'chat';
-- The detail and the replay read a consultation's events.
CREATE INDEX IF NOT EXISTS video_sync_event_consultation_idx ON video_sync_event (consultation_id, id);
