import type { FastifyReply, FastifyRequest } from 'fastify';
import { REFUND_LINK_PATH } from '../domain/refund-address-requests.js';
import type { App } from '../http/route-config.js';
import type { AppContext } from '../context.js';
import type { Submission } from '../use-cases/refund-address-requests.js';
import { acceptForms, formField } from './forms.js';
import type { SafeHtml } from './html.js';
import { chooseLanguage, type Language } from './i18n.js';
import { linkNotValidPage, refundDonePage, refundFormPage, refundReviewPage, type RefundPageInput } from './refund-link-page.js';
import { pageHeaders, type StaticAssets } from './static-assets.js';

type LinkRequest = FastifyRequest<{ Params: { token: string }; Querystring: { lang?: string } }>;

/** A network choice and an address, URL-encoded, with room to spare. */
const FORM_BYTES = 4 * 1024;

/**
 * The refund link's pages, under the payment page's prefix (so its per-address rate limit and headers apply):
 * the form (`GET`, or `POST` from the review's "change it", filled in), the review, and the submission.
 * Registered in a plugin of its own: only these routes take form bodies.
 */
export function refundLinkRoutes(app: App, { refundAddressRequests }: AppContext, assets: StaticAssets): void {
  const stylesheet = assets.url('pay.css');
  acceptForms(app, FORM_BYTES);

  const send = (request: LinkRequest, reply: FastifyReply, status: number, page: (lang: Language) => SafeHtml) => {
    const lang = chooseLanguage(request.query.lang, request.headers['accept-language']);
    return reply
      .code(status)
      .headers({ ...pageHeaders(), 'content-language': lang, vary: 'accept-language' })
      .send(page(lang).value);
  };
  const input = (request: LinkRequest, view: RefundPageInput['view']) => (lang: Language) => ({ lang, token: request.params.token, stylesheet, view });
  const notValid = (request: LinkRequest, reply: FastifyReply) =>
    send(request, reply, 404, (lang) => linkNotValidPage(lang, stylesheet, request.params.token));

  /** The form; on a used link, the address it recorded (a reload after Confirm), never the form again. */
  const form = async (request: LinkRequest, reply: FastifyReply) => {
    const linkPage = await refundAddressRequests.page(request.params.token);
    if (!linkPage) return notValid(request, reply);
    const page = input(request, linkPage.view);
    if (linkPage.state === 'submitted') return send(request, reply, 200, (lang) => refundDonePage(page(lang), linkPage.choice));
    const state = { pair: formField(request.body, 'pair'), address: formField(request.body, 'address') };
    return send(request, reply, 200, (lang) => refundFormPage(page(lang), state));
  };

  /**
   * A refused address brings the form back with what was typed and why (422); a used link, the address it
   * recorded, whatever was posted; a dead link, the one neutral page.
   */
  const answer = (request: LinkRequest, reply: FastifyReply, submission: Submission, accepted: typeof refundReviewPage) => {
    if (submission.outcome === 'invalid') return notValid(request, reply);
    const page = input(request, submission.view);
    if (submission.outcome === 'recorded') return send(request, reply, 200, (lang) => refundDonePage(page(lang), submission.choice));
    if (submission.outcome === 'accepted') return send(request, reply, 200, (lang) => accepted(page(lang), submission.choice));
    const state = { pair: formField(request.body, 'pair'), address: formField(request.body, 'address'), problem: submission.problem };
    return send(request, reply, 422, (lang) => refundFormPage(page(lang), state));
  };

  const path = `${REFUND_LINK_PATH}/:token`;
  app.get(path, { schema: { hide: true } }, form);
  app.post(path, { schema: { hide: true } }, form);
  app.post(`${path}/review`, { schema: { hide: true } }, async (request: LinkRequest, reply) => {
    const submission = await refundAddressRequests.review(request.params.token, formField(request.body, 'pair'), formField(request.body, 'address'));
    return answer(request, reply, submission, refundReviewPage);
  });
  app.post(`${path}/submit`, { schema: { hide: true } }, async (request: LinkRequest, reply) => {
    const submission = await refundAddressRequests.submit(request.params.token, formField(request.body, 'pair'), formField(request.body, 'address'));
    return answer(request, reply, submission, refundDonePage);
  });
}
