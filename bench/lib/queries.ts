// Reading n8n's SQL query log (typeorm, DB_LOGGING_OPTIONS=query).

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
