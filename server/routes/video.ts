/**
 * The video consultation room's API, mounted under /api/consult/v1 beside the
 * consultation routes (../video/ owns the rules):
 *   POST /video/room                       {consultationId, studyUids?}: start (or find) its room
 *   GET  /video/room/:consultationId       the room: meeting id, studies, presenter, SFU or mesh
 *   GET  /video/room/:consultationId/events?after=&kind=&limit=  the reading-together events and chat, in order (replay; also after the end)
 *   GET  /video/room/:consultationId/annotations    the final annotations (the consultation report)
 *   GET  /video/socket                     the signalling WebSocket (../video/hub.ts)
 * The socket is declared public because a browser cannot put a header on a WebSocket:
 * it authenticates with its first message (its app id, the session token and the consultation),
 * checked exactly as a request's token is, and nothing is said to it before that.
 */
import type { FastifyInstance } from 'fastify';
import websocket from '@fastify/websocket';
import { AppError } from '../lib/errors';
import { ok, replies } from '../lib/reply';
import { caller } from '../plugins/auth';
import { resolveSession } from '../identity/sessions';
import { bindMeeting } from '../consult/domain';
import { mayEnterRoom, mayReadRoom, VIDEO_START } from '../video/access';
import { VideoHub } from '../video/hub';
import { annotationsOf, eventsOf, roomOf, startRoom, SYNC_KINDS, type SyncKind } from '../video/rooms';

const consultationParams = { type: 'object', required: ['consultationId'], properties: { consultationId: { type: 'integer', minimum: 1 } } } as const;
const roomSchema = {
  type: 'object',
  required: ['meetingId', 'consultationId', 'studyUids', 'presenterId', 'sfu'],
  properties: {
    meetingId: { type: 'string' },
    consultationId: { type: 'integer' },
    studyUids: { type: 'array', items: { type: 'string' } },
    presenterId: { type: ['integer', 'null'] },
    sfu: { type: 'string', enum: ['mesh', 'janus'] },
  },
} as const;
// `state` stays open: each kind carries the viewer's own snapshot (view, annotations, chat line), which the room relays as sent.
const eventSchema = {
  type: 'object',
  required: ['id', 'userId', 'kind', 'state', 'at'],
  properties: { id: { type: 'integer' }, userId: { type: 'integer' }, kind: { type: 'string', enum: [...SYNC_KINDS] }, state: { type: 'object', additionalProperties: true }, at: { type: 'string', format: 'date-time' } },
} as const;
const UID = { type: 'string', pattern: '^[0-9.]{1,64}$' } as const;

export default async function videoRoutes(fastify: FastifyInstance) {
  const hub = new VideoHub({
    db: () => fastify.db,
    config: fastify.config.video,
    resolve: (token) => resolveSession(fastify.db, fastify.config.identity, token),
    log: fastify.log,
    appIds: fastify.config.appIds,
  });
  fastify.background.add('video relay', () => hub.start());
  fastify.addHook('preClose', () => hub.stop());
  await fastify.register(websocket, { options: { maxPayload: 256 * 1024 } });

  const sfu = () => (fastify.config.video.janusUrl ? ('janus' as const) : ('mesh' as const));
  /**
   * The room of a consultation the caller is a party to, in any state (its record is read
   * after the consultation has ended, for the replay; only joining needs it open); the
   * same answer whether it is missing or not theirs.
   */
  const readable = async (request: Parameters<typeof caller>[0], consultationId: number) => {
    const room = (await mayReadRoom(caller(request), consultationId, fastify.db)) ? await roomOf(fastify.db, consultationId) : undefined;
    if (!room) throw new AppError('CONSULT002');
    return room;
  };

  fastify.post<{ Body: { consultationId: number; studyUids?: string[] } }>(
    '/video/room',
    {
      config: { permission: VIDEO_START, audit: { action: 'create', object: 'videoRoom', id: 'body.consultationId' } },
      schema: {
        tags: ['consult'],
        summary: 'Start the video room of a consultation (or find the one started): its meeting id',
        body: {
          type: 'object',
          required: ['consultationId'],
          additionalProperties: false,
          properties: { consultationId: { type: 'integer', minimum: 1 }, studyUids: { type: 'array', maxItems: 20, items: UID } },
        },
        response: replies(roomSchema),
      },
    },
    async (request) => {
      const me = caller(request);
      const { consultationId } = request.body;
      // Only a party to a consultation about to start or running starts its room; the same answer when it is missing.
      if (!(await mayEnterRoom(me, consultationId, fastify.db))) throw new AppError('CONSULT002');
      const room = await startRoom(fastify.db, me.userId, consultationId, request.body.studyUids ?? []);
      await bindMeeting(fastify.db, me, consultationId, room.meetingId);
      return ok({ ...room, sfu: sfu() });
    },
  );

  fastify.get<{ Params: { consultationId: number } }>(
    '/video/room/:consultationId',
    {
      config: { session: true, audit: { action: 'read', object: 'videoRoom', id: 'params.consultationId' } },
      schema: { tags: ['consult'], summary: 'The video room of a consultation the caller is a party to (also after it ended)', params: consultationParams, response: replies(roomSchema) },
    },
    async (request) => ok({ ...(await readable(request, request.params.consultationId)), sfu: sfu() }),
  );

  fastify.get<{ Params: { consultationId: number }; Querystring: { after?: number; kind?: SyncKind; limit?: number } }>(
    '/video/room/:consultationId/events',
    {
      config: { session: true, audit: { action: 'read', object: 'videoRoom', id: 'params.consultationId' } },
      schema: {
        tags: ['consult'],
        summary: 'The reading-together events of the consultation in order, chat lines among them (1000 at a time or fewer, after the given id; or only one kind), to replay the session',
        params: consultationParams,
        querystring: {
          type: 'object',
          properties: { after: { type: 'integer', minimum: 0 }, kind: { type: 'string', enum: [...SYNC_KINDS] }, limit: { type: 'integer', minimum: 1, maximum: 1000 } },
        },
        response: replies({ type: 'array', items: eventSchema }),
      },
    },
    async (request) => {
      await readable(request, request.params.consultationId);
      return ok(await eventsOf(fastify.db, request.params.consultationId, request.query.after ?? 0, request.query.limit ?? 1000, request.query.kind));
    },
  );

  fastify.get<{ Params: { consultationId: number } }>(
    '/video/room/:consultationId/annotations',
    {
      config: { session: true, audit: { action: 'read', object: 'videoRoom', id: 'params.consultationId' } },
      schema: {
        tags: ['consult'],
        summary: 'The annotations the reading-together session ended with (for the consultation report), or null',
        params: consultationParams,
        // Annotations stay open: the viewer's tool blobs (Cornerstone's), kept and given back as they came.
        response: replies({
          anyOf: [
            { type: 'object', required: ['annotations', 'savedBy', 'savedAt'], properties: { annotations: { type: 'array', items: { type: 'object', additionalProperties: true } }, savedBy: { type: 'integer' }, savedAt: { type: 'string', format: 'date-time' } } },
            { type: 'null' },
          ],
        }),
      },
    },
    async (request) => {
      await readable(request, request.params.consultationId);
      return ok((await annotationsOf(fastify.db, request.params.consultationId)) ?? null);
    },
  );

  fastify.get('/video/socket', { websocket: true, config: { public: true, audit: 'none' }, schema: { tags: ['consult'], summary: 'The signalling WebSocket of the video rooms (first message: join with the session token)' } }, (socket) =>
    hub.accept(socket),
  );
}
