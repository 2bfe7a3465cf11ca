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
  chooseHow: 'Choose how to pay',
  asset: 'Asset',
  network: 'Network',
  on: '{asset} on {network}',
  onlyThis: 'Send only {asset} on {network} to this address.',
  otherIsLost: 'Another token, or the same token on another network, is lost.',
  amountToSend: 'Amount to send',
  worth: 'Worth {remaining} {currency}.',
  noPrice: 'Send the value of {remaining} {currency} in {asset} (no current price to convert it here).',
  copyAmount: 'Copy amount',
  amountCopied: 'Amount copied',
  qrLabel: 'QR code of the {asset} address on {network}',
  copy: 'Copy address',
  addressCopied: 'Address copied',
  copyFailed: 'Copy failed: select the address and copy it',
  waiting: 'Waiting for your payment…',
  confirming: 'Payment seen: waiting for the network to confirm it.',
  noNeedToPay: 'Do not pay again: this page updates by itself once the payment is confirmed.',
  partial: 'Partially paid: {received} {currency} received, {remaining} {currency} still to pay.',
  completed: 'Payment completed. Thank you!',
  expired: 'This payment request has expired.',
  expiredWithCredit: 'This payment request has expired. Received: {received} {currency}.',
  pendingDeposit: 'Payment seen: {amount} {asset} on {network} — waiting for confirmations ({confirmations} of {required})',
  receipt: 'Receipt',
  amountPaid: 'Amount paid',
  completedAt: 'Completed',
  transactionOn: 'Transaction on {network}',
  lastTransactionOn: 'Latest transaction on {network}',
  closeNow: 'You can close this page.',
  sendNothing: 'Do not send anything to this request. Ask whoever sent you the link for a new one.',
  lateMoney: 'Do not send anything more to this request. Ask whoever sent you the link about the {received} {currency} received.',
  tooManyTitle: 'Too many requests',
  tooManyBody: 'This page was loaded too often from your connection. Wait {seconds} s, then reload it.',
  notFoundTitle: 'Payment not found',
  notFoundBody: 'This payment link is unknown or no longer valid. Ask whoever sent it for a new one.',
  switchTo: 'Leer en español',
  refundTitle: 'Where should your refund go?',
  refundReceived: 'Received',
  refundReceivedOn: '{amount} {asset} on {network}',
  refundRefundedSoFar: '{refunded} {asset} refunded or on its way; {refundable} {asset} can still be refunded',
  refundNetwork: 'Network for the refund',
  refundNetworkHint: 'The refund is sent in the asset you paid with, on the network you choose here.',
  refundAddress: 'Your address on that network',
  refundAddressShown: 'Address',
  refundOwnWallet: 'Use the address of a wallet you control.',
  refundNoExchange: 'An exchange deposit address may not credit a refund to your account, and the money can be lost.',
  refundContinue: 'Continue',
  refundReviewTitle: 'Check your refund address',
  refundReviewBody: 'Compare every character with the address in your wallet: a refund sent to a wrong address cannot be recovered.',
  refundConfirm: 'Confirm this address',
  refundChange: 'Change it',
  refundDoneTitle: 'Refund address received',
  refundDoneBody: 'Thank you. Your refund will be sent to this address. You can close this page.',
  refundProblemNetwork: 'Choose the network for the refund.',
  refundProblemAddress: 'This is not a valid {network} address. Check it, or copy it again from your wallet.',
  refundProblemChecksum:
    'Enter the address exactly as your wallet shows it, with its capital and small letters: they are a checksum that catches typing mistakes.',
  refundNoChecksum:
    'A {network} address has no checksum: with one character wrong it can still be a valid address, of somebody else, and nothing here can tell. Copy it from your wallet rather than typing it, and compare every character.',
  refundInvalidTitle: 'Link not valid',
  refundInvalidBody: 'This refund link is unknown or no longer valid. Ask whoever sent it for a new one.',
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
  chooseHow: 'Elige cómo pagar',
  asset: 'Activo',
  network: 'Red',
  on: '{asset} en {network}',
  onlyThis: 'Envía solo {asset} en {network} a esta dirección.',
  otherIsLost: 'Otro token, o el mismo token en otra red, se pierde.',
  amountToSend: 'Monto a enviar',
  worth: 'Equivale a {remaining} {currency}.',
  noPrice: 'Envía el valor de {remaining} {currency} en {asset} (no hay un precio actual para convertirlo aquí).',
  copyAmount: 'Copiar monto',
  amountCopied: 'Monto copiado',
  qrLabel: 'Código QR de la dirección de {asset} en {network}',
  copy: 'Copiar dirección',
  addressCopied: 'Dirección copiada',
  copyFailed: 'No se pudo copiar: selecciona la dirección y cópiala',
  waiting: 'Esperando tu pago…',
  confirming: 'Pago detectado: esperando que la red lo confirme.',
  noNeedToPay: 'No pagues de nuevo: esta página se actualiza sola cuando el pago se confirma.',
  partial: 'Pago parcial: recibido {received} {currency}, faltan {remaining} {currency}.',
  completed: 'Pago completado. ¡Gracias!',
  expired: 'Esta solicitud de pago ha vencido.',
  expiredWithCredit: 'Esta solicitud de pago ha vencido. Recibido: {received} {currency}.',
  pendingDeposit: 'Pago detectado: {amount} {asset} en {network}, esperando confirmaciones ({confirmations} de {required})',
  receipt: 'Comprobante',
  amountPaid: 'Monto pagado',
  completedAt: 'Completado',
  transactionOn: 'Transacción en {network}',
  lastTransactionOn: 'Última transacción en {network}',
  closeNow: 'Ya puedes cerrar esta página.',
  sendNothing: 'No envíes nada a esta solicitud. Pide un nuevo enlace a quien te lo envió.',
  lateMoney: 'No envíes nada más a esta solicitud. Consulta a quien te envió el enlace por los {received} {currency} recibidos.',
  tooManyTitle: 'Demasiadas solicitudes',
  tooManyBody: 'Esta página se cargó demasiadas veces desde tu conexión. Espera {seconds} s y vuelve a cargarla.',
  notFoundTitle: 'Pago no encontrado',
  notFoundBody: 'Este enlace de pago no existe o ya no es válido. Pide uno nuevo a quien te lo envió.',
  switchTo: 'Read in English',
  refundTitle: '¿Adónde enviamos tu reembolso?',
  refundReceived: 'Recibido',
  refundReceivedOn: '{amount} {asset} en {network}',
  refundRefundedSoFar: '{refunded} {asset} reembolsados o en camino; aún se pueden reembolsar {refundable} {asset}',
  refundNetwork: 'Red para el reembolso',
  refundNetworkHint: 'El reembolso se envía en el activo con el que pagaste, en la red que elijas aquí.',
  refundAddress: 'Tu dirección en esa red',
  refundAddressShown: 'Dirección',
  refundOwnWallet: 'Usa la dirección de una billetera que controles.',
  refundNoExchange: 'Una dirección de depósito de un exchange puede no acreditar un reembolso en tu cuenta, y el dinero puede perderse.',
  refundContinue: 'Continuar',
  refundReviewTitle: 'Revisa tu dirección de reembolso',
  refundReviewBody: 'Compara cada carácter con la dirección de tu billetera: un reembolso enviado a una dirección equivocada no se puede recuperar.',
  refundConfirm: 'Confirmar esta dirección',
  refundChange: 'Cambiarla',
  refundDoneTitle: 'Dirección de reembolso recibida',
  refundDoneBody: 'Gracias. Tu reembolso se enviará a esta dirección. Ya puedes cerrar esta página.',
  refundProblemNetwork: 'Elige la red para el reembolso.',
  refundProblemAddress: 'Esta no es una dirección válida de {network}. Revísala o cópiala de nuevo desde tu billetera.',
  refundProblemChecksum:
    'Escribe la dirección tal como la muestra tu billetera, con sus mayúsculas y minúsculas: son una suma de verificación que detecta errores de escritura.',
  refundNoChecksum:
    'Una dirección de {network} no tiene suma de verificación: con un carácter equivocado puede seguir siendo válida, de otra persona, y nada aquí puede detectarlo. Cópiala de tu billetera en lugar de escribirla y compara cada carácter.',
  refundInvalidTitle: 'Enlace no válido',
  refundInvalidBody: 'Este enlace de reembolso no existe o ya no es válido. Pide uno nuevo a quien te lo envió.',
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
