// The action's parameters with a local file server (the sandbox, a test's own) listed in Allowed File Hosts, as a
// user lists a trusted file server on their own machine: Download keeps the option in its Options, the readers
// beside the URL. Other parameters are left as they are.
import type { IDataObject } from 'n8n-workflow';

export function allowingHost(parameters: IDataObject, baseUrl: string): IDataObject {
	const host = new URL(baseUrl).host;
	if (parameters.operation === 'download') {
		return {
			...parameters,
			options: { ...(parameters.options as IDataObject), allowedHosts: host },
		};
	}
	return parameters.inputSource === 'url' ? { ...parameters, allowedHosts: host } : parameters;
}
