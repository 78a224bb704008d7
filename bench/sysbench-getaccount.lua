-- Hammer's GetAccount for sysbench (bench/hammer-sessions.sh, ENGINE=mariadb): the procedure's
-- SELECT on spindle's TestTransaction, a random loaded key each event, as a prepared
-- statement. sysbench cannot read the results of a CALL (it leaves the procedure's final OK
-- unread: "Commands out of sync"), so the procedure's own work is spindle's alone.
local ROWS = 1000000

function thread_init()
  drv = sysbench.sql.driver()
  con = drv:connect()
  stmt = con:prepare("SELECT ChargeDate, Amount FROM TestTransaction WHERE CardNo = ?")
  card = stmt:bind_create(sysbench.sql.type.CHAR, 15)
  stmt:bind_param(card)
end

function event()
  card:set(string.format("%015d", sysbench.rand.uniform(0, ROWS - 1)))
  local rs = stmt:execute()
  if rs then rs:free() end
end

function thread_done()
  stmt:close()
  con:disconnect()
end
