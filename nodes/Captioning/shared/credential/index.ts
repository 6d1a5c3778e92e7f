// What the captioningApi credential class uses: the token flow for preAuthentication, the bearer token for
// authenticate, and the credential test's failing answers.
export { CREDENTIAL_TEST_FAILURES } from './failures';
export { obtainTokens } from './tokens';
export { BASE_URL_EXPRESSION, bearerToken, DEFAULT_MEDIA_TYPE } from './values';
