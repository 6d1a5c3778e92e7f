// Reading n8n's SQL query log (typeorm, DB_LOGGING_OPTIONS=query).
import { stripAnsi } from '../../harness';

/** The statement's kind and main table, e.g. `SELECT workflow_entity`, from a typeorm `query:` log line. */
export function statementKey(line: string): string {
	const sql = line.replace(/^.*?query:\s*/, '');
	const verb =
		/^(SELECT|INSERT|UPDATE|DELETE|BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|PRAGMA|WITH)\b/i.exec(
			sql,
		);
	const table = /\b(?:FROM|INTO|UPDATE)\s+"?([A-Za-z_]+)"?/i.exec(sql);
	return `${verb?.[1].toUpperCase() ?? sql.slice(0, 20)}${table ? ` ${table[1]}` : ''}`;
}

export interface QueryCount {
	perRequest: number;
	/** Statements per request by statementKey. */
	byStatement: Record<string, number>;
}

/** The `query:` lines of a stretch of n8n's output, per request of the `sent` that caused them. */
export function countStatements(output: string, sent: number): QueryCount {
	const byStatement: Record<string, number> = {};
	let total = 0;
	for (const line of stripAnsi(output).split('\n')) {
		if (!/\bquery:/.test(line)) continue;
		const key = statementKey(line);
		byStatement[key] = (byStatement[key] ?? 0) + 1 / sent;
		total++;
	}
	return { perRequest: total / sent, byStatement };
}
