import type { Catalog } from '../../domain/catalog.js';
import type { AddressFormat } from './address-codecs.js';

/**
 * The networks of `<prefix><NETWORK>` settings, checked against the catalog at start: each must exist and have
 * addresses of `format`, since a live address is derived, and a chain read, for that format only.
 */
export function rpcNetworks(urls: Readonly<Record<string, string>>, catalog: Catalog, prefix: string, format: AddressFormat, formatName: string): Map<string, string> {
  for (const network of Object.keys(urls)) {
    const entry = catalog.network(network);
    const variable = `${prefix}${network.toUpperCase().replaceAll('-', '_')}`;
    if (!entry) throw new Error(`${variable} names ${network}, which is not a network of the catalog`);
    if (entry.address_format !== format) throw new Error(`${variable}: ${network} is not ${formatName} network (its addresses are ${entry.address_format})`);
  }
  return new Map(Object.entries(urls));
}
