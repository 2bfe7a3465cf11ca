import { protocol, types, type messages, type PGlite } from '@electric-sql/pglite';

const { serialize } = protocol;

/** A statement PostgreSQL keeps parsed under `name` for the session, with what its Describe said. */
interface Prepared {
  name: string;
  /** The type of each parameter, which picks PGlite's serializer for it. */
  paramTypes: number[];
  /** The result columns, which pick PGlite's parser for each value. */
  columns: { name: string; type: number }[];
}

function concat(parts: Uint8Array[]): Uint8Array {
  const whole = new Uint8Array(parts.reduce((length, part) => length + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    whole.set(part, offset);
    offset += part.length;
  }
  return whole;
}

/**
 * Runs statements as named prepared statements, as the PostgreSQL store does: PGlite's own `query` sends every
 * statement unnamed, in six protocol round trips (parse, describe, bind, describe, execute, sync), each one a run of
 * the backend on the event loop, and PostgreSQL parses and plans the text again each time. Here a text is parsed and
 * described once per session; each call is then one round trip (bind, execute, sync) of a statement whose plan
 * PostgreSQL may keep. Values go through the same serializers and parsers as PGlite's `query`, so the rows are the
 * same. The caller holds PGlite's query lock: one round trip at a time.
 */
export class PreparedStatements {
  readonly #statements = new Map<string, Prepared>();
  /** Names are never reused: a parse that succeeded before its describe failed leaves its name taken. */
  #named = 0;

  constructor(private readonly db: PGlite) {}

  async query<Row>(text: string, params: readonly unknown[] = []): Promise<Row[]> {
    try {
      const statement = this.#statements.get(text) ?? (await this.#prepare(text));
      const values = params.map((value, i) => {
        if (value === null || value === undefined) return null;
        const serializer = this.db.serializers[statement.paramTypes[i]!];
        return serializer ? serializer(value) : String(value);
      });
      const replies = await this.db.execProtocolStream(
        concat([serialize.bind({ statement: statement.name, values }), serialize.execute(), serialize.sync()]),
        { syncToFs: false },
      );
      return this.#rows<Row>(statement, replies);
    } catch (error) {
      // As PGlite's `query` does, the error names its statement for whoever logs it.
      if (error instanceof Error && 'code' in error) Object.assign(error, { query: text, params });
      throw error;
    }
  }

  async #prepare(text: string): Promise<Prepared> {
    const name = `s${this.#named++}`;
    const replies = await this.db.execProtocolStream(
      concat([serialize.parse({ name, text }), serialize.describe({ type: 'S', name }), serialize.sync()]),
      { syncToFs: false },
    );
    const parameters = replies.find((m): m is messages.ParameterDescriptionMessage => m.name === 'parameterDescription');
    const row = replies.find((m): m is messages.RowDescriptionMessage => m.name === 'rowDescription');
    const statement: Prepared = {
      name,
      paramTypes: parameters?.dataTypeIDs ?? [],
      columns: row?.fields.map((field) => ({ name: field.name, type: field.dataTypeID })) ?? [],
    };
    this.#statements.set(text, statement);
    return statement;
  }

  #rows<Row>(statement: Prepared, replies: messages.BackendMessage[]): Row[] {
    const rows: Row[] = [];
    const { columns } = statement;
    for (const reply of replies) {
      if (reply.name !== 'dataRow') continue;
      const { fields } = reply as messages.DataRowMessage;
      const row: Record<string, unknown> = {};
      for (let i = 0; i < columns.length; i++) row[columns[i]!.name] = types.parseType(fields[i] ?? null, columns[i]!.type, this.db.parsers);
      rows.push(row as Row);
    }
    return rows;
  }
}
