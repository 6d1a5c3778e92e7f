/** Why a delivery is refused: the status n8n answers with, and words that name the cause and the fix. */
export type Rejection = { status: 400 | 401 | 409 | 413 | 415; message: string };
