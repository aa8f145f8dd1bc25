// How a stored Hub file is named, the same in the page's store and Node's.

/** A hub address as one folder name ("huggingface.co", "127.0.0.1_8080"). */
export const hostDir = (hub) => new URL(hub).host.replace(/[^A-Za-z0-9.-]/g, '_');

/** A file name as one path segment (a file in a repository folder: "onnx%2Fmodel.onnx"). */
export const fileSegment = (file) => file.replaceAll('%', '%25').replaceAll('/', '%2F');
