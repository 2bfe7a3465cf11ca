/** The payment page's languages: English, and Spanish for the Latin American fiat list. */
export const LANGUAGES = ['en', 'es'] as const;
export type Language = (typeof LANGUAGES)[number];

const en = {
  languageName: 'English',
  title: 'Pay {amount} {currency}',
  reference: 'Reference',
  testBanner: 'Test mode: this is a sandbox payment request. No real money moves.',
  simulate: 'Simulate payment',
  simulating: 'Simulating…',
  simulateFailed: 'The simulated payment failed. Try again.',
  timeLeft: 'Time left',
  sendTo: 'Send the amount to one of these addresses',
  on: '{asset} on {network}',
  qrLabel: 'QR code of the {asset} address on {network}',
  copy: 'Copy address',
  copied: 'Address copied',
  copyFailed: 'Copy failed: select the address and copy it',
  waiting: 'Waiting for your payment…',
  partial: 'Partially paid: {received} {currency} received, {remaining} {currency} still to pay.',
  completed: 'Payment completed. Thank you!',
  expired: 'This payment request has expired.',
  expiredWithCredit: 'This payment request has expired. Received: {received} {currency}.',
  pendingDeposit: 'Payment seen: {amount} {asset} on {network} — waiting for confirmations ({confirmations} of {required})',
  notFoundTitle: 'Payment not found',
  notFoundBody: 'This payment link is unknown or no longer valid. Ask whoever sent it for a new one.',
  switchTo: 'Leer en español',
};

const es: typeof en = {
  languageName: 'Español',
  title: 'Pagar {amount} {currency}',
  reference: 'Referencia',
  testBanner: 'Modo de prueba: esta es una solicitud de pago de sandbox. No se mueve dinero real.',
  simulate: 'Simular pago',
  simulating: 'Simulando…',
  simulateFailed: 'El pago simulado falló. Inténtalo de nuevo.',
  timeLeft: 'Tiempo restante',
  sendTo: 'Envía el monto a una de estas direcciones',
  on: '{asset} en {network}',
  qrLabel: 'Código QR de la dirección de {asset} en {network}',
  copy: 'Copiar dirección',
  copied: 'Dirección copiada',
  copyFailed: 'No se pudo copiar: selecciona la dirección y cópiala',
  waiting: 'Esperando tu pago…',
  partial: 'Pago parcial: recibido {received} {currency}, faltan {remaining} {currency}.',
  completed: 'Pago completado. ¡Gracias!',
  expired: 'Esta solicitud de pago ha vencido.',
  expiredWithCredit: 'Esta solicitud de pago ha vencido. Recibido: {received} {currency}.',
  pendingDeposit: 'Pago detectado: {amount} {asset} en {network}, esperando confirmaciones ({confirmations} de {required})',
  notFoundTitle: 'Pago no encontrado',
  notFoundBody: 'Este enlace de pago no existe o ya no es válido. Pide uno nuevo a quien te lo envió.',
  switchTo: 'Read in English',
};

export type Messages = typeof en;
export const MESSAGES: Record<Language, Messages> = { en, es };

/** `{name}` placeholders filled from `values`; the page's script fills the same templates the same way. */
export const fill = (template: string, values: Record<string, string>) => template.replace(/\{(\w+)\}/g, (_, name: string) => values[name] ?? '');

const isLanguage = (value: unknown): value is Language => LANGUAGES.includes(value as Language);

/**
 * An explicit choice (`?lang=`) wins; otherwise the Accept-Language entry of highest weight that names one of
 * ours (`es-PE` counts as `es`); English when none does.
 */
export function chooseLanguage(explicit: unknown, acceptLanguage: string | undefined): Language {
  if (isLanguage(explicit)) return explicit;
  let best: { language: Language; weight: number } | null = null;
  for (const entry of (acceptLanguage ?? '').split(',')) {
    const [tag = '', ...params] = entry.trim().toLowerCase().split(';');
    const language = tag.split('-')[0];
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const weight = q ? Number(q.slice(2)) : 1;
    if (isLanguage(language) && weight > 0 && (!best || weight > best.weight)) best = { language, weight };
  }
  return best?.language ?? 'en';
}
