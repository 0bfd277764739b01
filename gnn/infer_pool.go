package gnn

// start launches the helper goroutines, workers 1.. of c.workers; the
// caller of Greedy is worker 0.
func (c *inferCore) start() {
	for i := 1; i < len(c.workers); i++ {
		ch := make(chan struct{}, 1)
		c.wake = append(c.wake, ch)
		w := c.workers[i]
		c.helpers.Go(func() {
			for range ch {
				c.work(w)
				c.wg.Done()
			}
		})
	}
}

// stop ends the helper goroutines and waits for them to return. It is
// idempotent.
func (c *inferCore) stop() {
	c.stopOnce.Do(func() {
		for _, ch := range c.wake {
			close(ch)
		}
		c.wake = nil
		c.helpers.Wait()
	})
}

// run computes phase k of a step on every worker and returns when all are
// done: phase 0 embeds the features, phase k = 1..K is message-passing
// round k (with the readout in round K).
func (c *inferCore) run(k int) {
	c.phase = k
	c.next.Store(0)
	if len(c.wake) > 0 {
		c.wg.Add(len(c.wake))
		for _, ch := range c.wake {
			ch <- struct{}{}
		}
	}
	c.work(c.workers[0])
	c.wg.Wait()
}

// work computes chunks of the current phase until none is left. Chunks go
// to whichever worker asks first; the result of every port is the same
// whichever computes it.
func (c *inferCore) work(w *inferWorker) {
	k := c.phase
	n := c.ports
	if k > 0 {
		n = len(c.order[k])
	}
	for {
		lo := int(c.next.Add(inferChunk)) - inferChunk
		if lo >= n {
			return
		}
		hi := min(lo+inferChunk, n)
		if k == 0 {
			c.embed(lo, hi)
		} else {
			c.round(w, k, lo, hi)
		}
	}
}
