-- wrk script for requests with a body: WRK_METHOD (default POST), WRK_BODY_FILE (the body),
-- WRK_CONTENT_TYPE (default application/json). Other headers are given to wrk with -H.
local method = os.getenv("WRK_METHOD") or "POST"
local path = os.getenv("WRK_BODY_FILE")
local body = ""
if path then
    local file = assert(io.open(path, "rb"))
    body = file:read("*a")
    file:close()
end
wrk.method = method
wrk.body = body
wrk.headers["Content-Type"] = os.getenv("WRK_CONTENT_TYPE") or "application/json"
