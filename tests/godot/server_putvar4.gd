extends SceneTree
# An unmodified Godot 4 client of examples/server/ (run by tests/server/server_putvar.rs):
# StreamPeerTCP with Nagle on (the default, no set_no_delay), `count` put_var / get_var round
# trips of an int; each reply must be the server's summary Dictionary (with its "seq"). Reads
# `port count` from res://putvar_config.txt; prints "PUTVAR <count> <milliseconds> <failures>"
# and "PUTVAR-DONE".

func _init() -> void:
	var cfg := FileAccess.get_file_as_string("res://putvar_config.txt").split(" ")
	var port := int(cfg[0])
	var count := int(cfg[1])
	var p := StreamPeerTCP.new()
	p.connect_to_host("127.0.0.1", port)
	var deadline := Time.get_ticks_msec() + 10000
	while p.get_status() == StreamPeerTCP.STATUS_CONNECTING and Time.get_ticks_msec() < deadline:
		p.poll()
		OS.delay_usec(1000)
	if p.get_status() != StreamPeerTCP.STATUS_CONNECTED:
		print("FAIL connect %d" % p.get_status())
		quit(1)
		return
	var failures := 0
	var start := Time.get_ticks_usec()
	for i in count:
		p.put_var(i)
		while p.get_available_bytes() < 4 and p.get_status() == StreamPeerTCP.STATUS_CONNECTED:
			p.poll()
			if Time.get_ticks_msec() > deadline + 60000:
				print("FAIL timeout at %d" % i)
				quit(1)
				return
		var back = p.get_var()
		if typeof(back) != TYPE_DICTIONARY or not back.has("seq"):
			failures += 1
			if failures < 5:
				print("FAIL reply %d: %s" % [i, str(back)])
	var ms := (Time.get_ticks_usec() - start) / 1000.0
	print("PUTVAR %d %.1f %d" % [count, ms, failures])
	print("PUTVAR-DONE")
	quit(0)
