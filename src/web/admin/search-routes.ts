import type { FastifyReply, FastifyRequest } from 'fastify';
import { notFound } from '../../domain/errors.js';
import type { App } from '../../http/route-config.js';
import type { AppContext } from '../../context.js';
import { eventsAbout, findObject, refundsOfIntent, searchObjects } from '../../use-cases/dashboard.js';
import type { SafeHtml } from '../html.js';
import { isObjectKind, objectPage, objectUrl, searchPage, searchTerm } from './object-pages.js';
import { DASHBOARD, type PageContext } from './pages.js';

export interface PageSender {
  pageContext(request: FastifyRequest): PageContext;
  send(reply: FastifyReply, markup: SafeHtml): FastifyReply;
}

/** The search box's answers (every organization and mode; one match is opened at once) and the objects' pages. */
export function searchRoutes(signedIn: App, { db }: AppContext, { pageContext, send }: PageSender): void {
  signedIn.get<{ Querystring: { q?: unknown } }>(`${DASHBOARD}/search`, async (request, reply) => {
    const term = searchTerm(request.query.q);
    const found = term === null ? [] : await searchObjects(db, term);
    if (found.length === 1) return reply.redirect(objectUrl(found[0]!.kind, found[0]!.id, found[0]!.mode), 303);
    return send(reply, searchPage(pageContext(request), term, found));
  });

  signedIn.get<{ Params: { kind: string; id: string } }>(`${DASHBOARD}/objects/:kind/:id`, async (request, reply) => {
    const { kind, id } = request.params;
    if (!isObjectKind(kind)) throw notFound('object');
    const row = await findObject(db, kind, id);
    if (!row) throw notFound(kind.replace('_', ' '));
    const refunds = kind === 'payment_intent' ? await refundsOfIntent(db, id) : null;
    return send(reply, objectPage(pageContext(request), kind, row, await eventsAbout(db, id), refunds));
  });
}
