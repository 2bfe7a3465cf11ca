const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids are UUIDs; a malformed one is checked before it reaches a uuid column (which would fail the query). */
export const isUuid = (value: string) => UUID.test(value);
