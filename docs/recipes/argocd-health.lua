-- Argo CD health of Proctor's resources (group proctor.dev): one script for the four kinds.
-- Lua 5.1 (Argo CD's gopher-lua), no library beyond the base functions.
--
-- EvalRun: Progressing until status.phase is terminal (Evaluated, PartiallyEvaluated, Failed);
--   then Healthy for PASS and WARN, Degraded for FAIL and ERROR (a Failed run is ERROR).
-- CaseSet, EvalProfile, GatePolicy: Healthy when Ready=True, Degraded when Ready=False,
--   Progressing otherwise (not looked at yet, or status older than the spec).
local hs = {status = "Progressing", message = ""}
local status = obj.status or {}

local function condition(kind)
  for _, c in ipairs(status.conditions or {}) do
    if c.type == kind then
      return c
    end
  end
  return nil
end

local function text(value)
  if value == nil then
    return ""
  end
  return tostring(value)
end

if obj.kind == "EvalRun" then
  local phase = status.phase
  if phase == "Evaluated" or phase == "PartiallyEvaluated" or phase == "Failed" then
    local verdict = status.verdict or "ERROR"
    if phase == "Failed" then
      verdict = "ERROR"
    end
    if verdict == "PASS" or verdict == "WARN" then
      hs.status = "Healthy"
    else
      hs.status = "Degraded"
    end
    hs.message = verdict .. " (" .. phase .. "): " .. text(status.message)
  elseif phase == nil then
    hs.message = "waiting for the operator to pick the run up"
  else
    hs.message = phase .. ": " .. text(status.message)
  end
  return hs
end

local generation = (obj.metadata or {}).generation
if status.observedGeneration ~= nil and generation ~= nil and status.observedGeneration < generation then
  hs.message = "the operator has not looked at the latest spec yet"
  return hs
end
local ready = condition("Ready")
if ready == nil then
  hs.message = "waiting for the operator to validate it"
elseif ready.status == "True" then
  hs.status = "Healthy"
  hs.message = text(ready.message)
elseif ready.status == "False" then
  hs.status = "Degraded"
  hs.message = text(ready.reason) .. ": " .. text(ready.message)
else
  hs.message = text(ready.reason) .. ": " .. text(ready.message)
end
return hs
