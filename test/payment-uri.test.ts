import { describe, expect, it } from 'vitest';
import { Decimal } from '../src/domain/money.js';
import { paymentUri } from '../src/domain/payment-uri.js';
import { chooseLanguage } from '../src/web/i18n.js';
import { html, jsonData, trusted } from '../src/web/html.js';
import { payPage } from '../src/web/pay-page.js';

const evm = { chainId: 8453, addressFormat: 'evm' as const, address: '0xAbC', decimals: 6 };

describe('payment URIs in QR codes', () => {
  it('EIP-681: an ERC-20 transfer names token, chain, recipient and base units; native asset uses value in wei', () => {
    expect(paymentUri({ ...evm, tokenContract: '0xToken', amount: new Decimal('25.5') })).toBe(
      'ethereum:0xToken@8453/transfer?address=0xAbC&uint256=25500000',
    );
    expect(paymentUri({ ...evm, chainId: 1, tokenContract: null, decimals: 18, amount: new Decimal('0.001') })).toBe(
      'ethereum:0xAbC@1?value=1000000000000000',
    );
    expect(paymentUri({ ...evm, tokenContract: '0xToken', amount: null })).toBe('ethereum:0xToken@8453/transfer?address=0xAbC');
  });

  it('BIP-21 on Bitcoin, Solana Pay on Solana, the bare address where no scheme exists (Tron) or the chain is unknown', () => {
    expect(paymentUri({ chainId: null, addressFormat: 'bitcoin', address: 'bc1q', tokenContract: null, decimals: 8, amount: new Decimal('0.0015') })).toBe(
      'bitcoin:bc1q?amount=0.0015',
    );
    expect(paymentUri({ chainId: null, addressFormat: 'solana', address: 'So1', tokenContract: 'Mint', decimals: 6, amount: new Decimal('3') })).toBe(
      'solana:So1?amount=3&spl-token=Mint',
    );
    expect(paymentUri({ chainId: null, addressFormat: 'tron', address: 'T9z', tokenContract: 'TR7', decimals: 6, amount: new Decimal('3') })).toBe('T9z');
    expect(paymentUri({ ...evm, chainId: null, tokenContract: '0xToken', amount: new Decimal('1') })).toBe('0xAbC');
  });
});

describe('page language', () => {
  it('takes ?lang= first, then the highest-weighted Accept-Language we speak, else English', () => {
    expect(chooseLanguage('es', 'en')).toBe('es');
    expect(chooseLanguage('fr', 'es-MX,es;q=0.9')).toBe('es');
    expect(chooseLanguage(undefined, 'fr, en;q=0.4, es;q=0.8')).toBe('es');
    expect(chooseLanguage(undefined, 'es;q=0, en;q=0.1')).toBe('en');
    expect(chooseLanguage(undefined, 'de')).toBe('en');
    expect(chooseLanguage(undefined, undefined)).toBe('en');
  });
});

describe('page templates', () => {
  it('escape every interpolated value unless it is trusted markup', () => {
    expect(html`<p title="${'"><script>'}">${'<b>'}${trusted('<i>x</i>')}</p>`.value).toBe('<p title="&quot;&gt;&lt;script&gt;">&lt;b&gt;<i>x</i></p>');
  });

  it("escape a pending deposit's line, in the page and in its script data", () => {
    const hostile = '<img src=x onerror=alert(1)>';
    const status = {
      state: 'waiting' as const,
      currency: 'USDC',
      amount: '10',
      amount_received: '0',
      amount_remaining: '10',
      expires_at: '2026-11-23T06:00:00.000Z',
      pending_deposits: [{ asset: 'USDC', network: 'x', network_name: hostile, amount: '10', confirmations: 1, confirmations_required: 3 }],
    };
    const page = payPage({
      view: { id: 'i', refCode: 'ABCDE', sandbox: false, status, step: 'confirming', choices: [], card: null, completedAt: null, lastPayment: null },
      lang: 'en',
      qrCode: null,
      statusUrl: '/s',
      simulateUrl: '/m',
      now: new Date(),
      assets: { stylesheet: '/a.css', script: '/a.js' },
    }).value;
    expect(page).toContain('<li>Payment seen: 10 USDC on &lt;img src=x onerror=alert(1)&gt; — waiting for confirmations (1 of 3)</li>');
    expect(page).not.toContain(hostile);
  });

  it('script data cannot close its element', () => {
    expect(jsonData('d', { a: '</script><script>alert(1)</script>' }).value).not.toContain('</script><script>');
  });
});
