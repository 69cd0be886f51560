import NIOHTTP1

/// One hop's answer, however it travelled. Fetcher keeps the body of a 200
/// only; a request in absolute form reads every body (within the limit).
struct HTTPReply {
    var status: HTTPResponseStatus
    var headers: HTTPHeaders
    var body: [UInt8]
}
