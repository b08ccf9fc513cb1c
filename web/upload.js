// Uploads a log to the server off the page's thread: reading a large
// file, writing it into a JSON body and sending it take the page's
// thread for hundreds of milliseconds, here they take this worker's.
//   in:  {url, args: {format, parser, delimiter}, file: Blob}
//   out: {status, body} (the response's text) | {error}
self.onmessage = async (e) => {
  const { url, args, file } = e.data;
  try {
    const body = JSON.stringify({ ...args, log: await file.text() });
    const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body, credentials: "same-origin" });
    self.postMessage({ status: res.status, body: await res.text() });
  } catch (err) {
    self.postMessage({ error: String((err && err.message) || err) });
  }
};
