-- Streamlit's front-end files, compressed once (deploy/precompress), answered by HAProxy from memory.
--
-- deploy/haproxy.cfg loads this when RBFVIZ_STATIC_DIR names a folder written by deploy/precompress
-- (manifest.tsv + static/...<file>.gz/.br). For a GET of a listed /static/ path whose client accepts
-- Brotli or gzip, the action "rbfviz_static_pick" sets txn.rbfviz_encoding and the service
-- "rbfviz_static" answers with the stored bytes; everything else goes to the replicas as before
-- (and HAProxy's own gzip compresses what is compressible). The files' names carry a content hash
-- and Streamlit sends them "immutable", so serving them from the proxy cannot serve a stale file:
-- a name the replicas' Streamlit does not have is never asked for.

local dir = os.getenv("RBFVIZ_STATIC_DIR")
local files = {} -- URL path -> { type = ..., gzip = bytes, br = bytes }
local count, bytes = 0, 0

local function read_all(path)
    local f = io.open(path, "rb")
    if f == nil then
        return nil
    end
    local data = f:read("*a")
    f:close()
    return data
end

local manifest = io.open(dir .. "/manifest.tsv", "r")
if manifest == nil then
    error("RBFVIZ_STATIC_DIR=" .. dir .. " has no manifest.tsv (run deploy/precompress " .. dir .. ")")
end
for line in manifest:lines() do
    local path, kind, _, encodings = line:match("^([^\t]+)\t([^\t]+)\t([^\t]+)\t([^\t]+)$")
    if path ~= nil then
        local entry = { type = kind }
        for encoding in encodings:gmatch("[^,]+") do
            local suffix = encoding == "gzip" and ".gz" or "." .. encoding
            entry[encoding] = read_all(dir .. path .. suffix)
            if entry[encoding] == nil then
                error("deploy/static.lua: " .. dir .. path .. suffix .. " is listed but missing")
            end
            bytes = bytes + #entry[encoding]
        end
        files[path] = entry
        count = count + 1
    end
end
manifest:close()
core.log(core.info, string.format("rbfviz static: %d files, %.1f MB compressed, from %s", count, bytes / 1e6, dir))

-- the encodings a client accepts ("br", "gzip"), ignoring those it refuses with q=0
local function accepted(header)
    local ok = {}
    for item in (header or ""):gmatch("[^,]+") do
        local name, params = item:match("^%s*([%w%-%*]+)%s*(.*)$")
        if name ~= nil then
            local q = params:match("[qQ]%s*=%s*([%d%.]+)")
            ok[name:lower()] = q == nil or tonumber(q) > 0
        end
    end
    return ok
end

core.register_action("rbfviz_static_pick", { "http-req" }, function(txn)
    local entry = files[txn.sf:path()]
    if entry == nil then
        return
    end
    local ok = accepted(txn.sf:req_fhdr("accept-encoding"))
    -- Brotli is ~15 % smaller than Zopfli's gzip on these files; browsers offer it over HTTPS (and to localhost)
    if entry.br ~= nil and ok["br"] then
        txn:set_var("txn.rbfviz_encoding", "br")
    elseif entry.gzip ~= nil and (ok["gzip"] or ok["x-gzip"]) then
        txn:set_var("txn.rbfviz_encoding", "gzip")
    end
end)

core.register_service("rbfviz_static", "http", function(applet)
    local entry = files[applet.path]
    local encoding = applet:get_var("txn.rbfviz_encoding")
    local body = entry[encoding]
    applet:set_status(200)
    applet:add_header("content-type", entry.type)
    applet:add_header("content-encoding", encoding)
    applet:add_header("content-length", tostring(#body))
    applet:add_header("vary", "Accept-Encoding")
    -- as Streamlit sends them: the names change with the content
    applet:add_header("cache-control", "public, immutable, max-age=31536000")
    applet:start_response()
    applet:send(body)
end)
