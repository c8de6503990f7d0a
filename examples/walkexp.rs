fn main() {
    let dir = std::env::args().nth(1).unwrap();
    let base = std::env::args().nth(2).unwrap();
    let mode = std::env::args().nth(3).unwrap_or_default();
    let mut repo = gix::open_opts(&dir, gix::open::Options::isolated()).unwrap();
    let oc: usize = std::env::var("OC")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(32 << 20);
    repo.object_cache_size(Some(oc));
    let head = repo.head_id().unwrap().detach();
    let base = gix::ObjectId::from_hex(base.as_bytes()).unwrap();
    let t = std::time::Instant::now();
    let mut n = 0usize;
    if mode == "bfs" {
        // plain BFS without hidden painting (linear history: base is root)
        let mut stack = vec![head];
        let mut seen = std::collections::HashSet::new();
        while let Some(id) = stack.pop() {
            if id == base || !seen.insert(id) {
                continue;
            }
            let o = repo.find_object(id).unwrap();
            let c = gix::objs::CommitRef::from_bytes(&o.data, repo.object_hash()).unwrap();
            for p in c.parents() {
                stack.push(p);
            }
            n += 1;
        }
    } else {
        let walk = repo.rev_walk([head]).with_hidden([base]).all().unwrap();
        for info in walk {
            let info = info.unwrap();
            if mode == "decode" {
                let o = repo.find_object(info.id).unwrap();
                let _c = gix::objs::CommitRef::from_bytes(&o.data, repo.object_hash()).unwrap();
            }
            n += 1;
        }
    }
    eprintln!("{mode} {n} {:?}", t.elapsed());
}
